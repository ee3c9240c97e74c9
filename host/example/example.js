// The example host page (docs/hosts.md): the app drawn into #app by the
// platform's SDK, one component of the host's own, refusals shown in
// #host-error. `config.js` is what the host's server gives its page: where the
// platform is, the integration, the user and the render credential (an
// identity token in a real browser host; see docs/hosts.md, "Authenticate").
// `npm run dev` serves it from its data folder's host-example.json, and says
// in `problem` what is missing when that file is not written yet.
import config from "./config.js";

const errors = document.getElementById("host-error");
const show = (text) => {
  errors.hidden = false;
  errors.textContent = text;
};

if (config.problem) show(config.problem);
else {
  const { mount } = await import(`${config.baseUrl}/apps/host/v1.js`);
  window.platformApp = mount(document.getElementById("app"), {
    baseUrl: config.baseUrl,
    integrationId: config.integrationId,
    credential: config.credential,
    body: { user: config.user, company: config.company },
    context: { locale: navigator.language },
    components: {
      // The host's own component: built with createElement and textContent, as the SDK's are.
      host_greeting: (props) => {
        const card = document.createElement("div");
        card.className = "greeting";
        const text = document.createElement("strong");
        text.textContent = `Welcome back, ${props.name}`;
        card.append(text);
        return card;
      },
    },
    onError: (error) => show(`${error.status} ${error.code}: ${error.message}`),
  });
}
