// The service worker for Web Push (push.js): shows each message the host pushes (a session's title and state,
// never its content) and opens that session's page when the notification is tapped.
self.addEventListener("push", function (event) {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  event.waitUntil(self.registration.showNotification(data.title || "Yoke", {
    body: data.body || "", tag: (data.session || "") + ":" + (data.state || ""), data: {url: data.url || "/"},
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || "/";
  // only a page of this host's own origin is opened
  const target = new URL(url, self.location.origin);
  if (target.origin !== self.location.origin) return;
  event.waitUntil(self.clients.openWindow(target.href));
});
