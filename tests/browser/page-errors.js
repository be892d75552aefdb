// Records the page's uncaught errors, unhandled rejections and console.error calls in
// window.__fxPageErrors, for the driver without error events (WebKit through classic WebDriver;
// see engines.mjs). Loaded first by harness.html.
(() => {
  const record = (text) => {
    window.__fxPageErrors = window.__fxPageErrors ?? [];
    window.__fxPageErrors.push(text);
  };
  window.addEventListener('error', (event) => record(`pageerror: ${event.message}`));
  window.addEventListener('unhandledrejection', (event) =>
    record(`pageerror: ${event.reason?.message ?? String(event.reason)}`),
  );
  const consoleError = console.error;
  console.error = function (...args) {
    record(`console: ${args.map((arg) => String(arg)).join(' ')}`);
    return consoleError.apply(this, args);
  };
})();
