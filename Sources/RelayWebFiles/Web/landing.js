"use strict";
// The landing page: the pad and watch URLs of the session name typed in.
(function () {
  const input = document.getElementById("session");
  const scene = document.getElementById("scene");
  const error = document.getElementById("name-error");
  const valid = /^[A-Za-z0-9_-]{1,64}$/;

  function update() {
    const name = input.value.trim();
    const ok = valid.test(name);
    error.hidden = ok || name === "";
    if (!ok) return;
    const query = scene.value ? "?scene=" + scene.value : "";
    const pad = "/pad/" + name + query;
    const watch = "/watch/" + name;
    document.getElementById("pad-link").href = pad;
    document.getElementById("pad-url").textContent = location.origin + pad;
    document.getElementById("watch-link").href = watch;
    document.getElementById("watch-url").textContent = location.origin + watch;
  }

  input.addEventListener("input", update);
  scene.addEventListener("change", update);
  document.getElementById("start").addEventListener("submit", function (e) {
    e.preventDefault();
    if (valid.test(input.value.trim())) location.href = document.getElementById("watch-link").href;
  });
  update();
})();
