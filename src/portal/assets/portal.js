/* global document, navigator */
// The portal's only script, loaded as a module from Herald itself (CSP script-src 'self').
// Everything works without it; it adds "select all" and "copy" conveniences.
for (const box of document.querySelectorAll('[data-select-all]')) {
  box.addEventListener('change', () => {
    for (const item of document.querySelectorAll(`input[type=checkbox][name="${box.dataset.selectAll}"]`))
      item.checked = box.checked;
  });
}
for (const button of document.querySelectorAll('[data-copy]')) {
  button.addEventListener('click', async () => {
    const text = document.getElementById(button.dataset.copy)?.textContent ?? '';
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = '✓';
    } catch {
      // No clipboard permission (an iframe, plain http): the secret stays selectable on the page.
    }
  });
}
