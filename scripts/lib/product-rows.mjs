// The product rows the CSV benchmarks (files, actions) import, as a CSV file
// and as COPY text (tab-separated: name, attributes json, key) for the raw-SQL
// baseline, so both suites and both sides move the very same rows.

export function productRows(count) {
  const csv = ["name,sku,title,price,qty,category"];
  const copy = [];
  for (let i = 0; i < count; i++) {
    const attributes = { sku: `SKU-${i}`, title: `Title ${i}, "quoted"`, price: (i % 1000) + 0.5, qty: i % 50, category: `cat-${i % 200}` };
    csv.push(`Product ${i},${attributes.sku},"${attributes.title.replace(/"/g, '""')}",${attributes.price},${attributes.qty},${attributes.category}`);
    copy.push(`Product ${i}\t${JSON.stringify(attributes).replace(/\\/g, "\\\\")}\t${attributes.sku}\n`);
  }
  return { csv: csv.join("\r\n") + "\r\n", copy: copy.join("") };
}
