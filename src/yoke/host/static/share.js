// After a share link set its view-only cookie: open the session from this page (same-site, so the cookie goes).
location.replace(document.getElementById("open").getAttribute("href"));
