// Ports for processes the end-to-end tests start.
import net from "node:net";

/**
 * A port nothing listens on: bound, then released. Free for a server the test
 * starts next, and refusing connections until one does.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
