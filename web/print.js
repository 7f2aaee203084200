// The printable report's Print button (inline handlers are refused by the page's CSP).
for (const b of document.querySelectorAll("[data-print]")) b.addEventListener("click", () => window.print());
