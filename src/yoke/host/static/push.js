// "Notify me": subscribes this browser to Web Push for the host's sessions (blocked, finished, failed, goal
// verified; docs/notifications.md). The host's VAPID key comes from GET /push/key; the subscription goes to
// POST /push/subscribe with this page's cookie, kept for this paired device only.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !window.isSecureContext) return;
  if (document.querySelector('[data-read-only="1"]')) return;  // a share link's page: no subscriptions
  const button = document.createElement("button");
  button.type = "button";
  button.id = "notify";
  button.textContent = "Notify me";
  (document.querySelector("header") || document.body).appendChild(button);

  function keyBytes(text) {
    const padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), function (c) { return c.charCodeAt(0); });
  }

  async function post(path, body) {
    const reply = await fetch(path, {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json"}, body: body});
    if (!reply.ok) throw new Error(await reply.text());
  }

  async function subscribe() {
    const registration = await navigator.serviceWorker.register("/static/push-sw.js");
    if ((await Notification.requestPermission()) !== "granted") throw new Error("notifications not allowed");
    const key = (await (await fetch("/push/key", {credentials: "same-origin"})).json()).publicKey;
    const subscription = await registration.pushManager.subscribe(
      {userVisibleOnly: true, applicationServerKey: keyBytes(key)});
    await post("/push/subscribe", JSON.stringify(subscription));
  }

  button.addEventListener("click", function () {
    button.disabled = true;
    subscribe().then(function () {
      button.textContent = "Notifications on";
    }, function (error) {
      button.disabled = false;
      button.textContent = "Notify me";
      button.title = String(error.message || error);
    });
  });
})();
