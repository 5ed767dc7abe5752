// The price step: the stay's own form asks for the price by GET, which
// works without this script. Here the answer is fetched and put in place
// of the stay's form, so the details typed below stay as they are, and
// the address becomes the step's, so a refresh shows the same price.
// Sending copies the stay into the booking form's hidden fields.
(function () {
  var book = document.getElementById("book");
  if (!book || !document.getElementById("stay")) return;
  book.addEventListener("submit", function () {
    var kept = book.querySelectorAll("input[data-stay]");
    for (var i = 0; i < kept.length; i++) {
      var shown = document.getElementById(kept[i].getAttribute("data-stay"));
      if (shown) kept[i].value = shown.value;
    }
  });
  document.addEventListener("submit", function (e) {
    var stay = e.target;
    if (stay.id !== "stay" || !window.fetch || !window.DOMParser || !window.URLSearchParams) return;
    e.preventDefault();
    var q = new URLSearchParams(new FormData(stay));
    q.set("step", "quote");
    var url = stay.getAttribute("action") + "?" + q.toString();
    fetch(url, { credentials: "same-origin" }).then(function (r) { return r.text(); }).then(function (html) {
      var next = new DOMParser().parseFromString(html, "text/html").getElementById("stay");
      if (!next) { location.href = url; return; }
      stay.replaceWith(next);
      history.replaceState(null, "", url);
      var wrong = next.querySelector('[aria-invalid="true"]');
      (wrong || document.getElementById("quote")).focus();
    }, function () { location.href = url; });
  });
})();
(function () {
  var pad = document.getElementById("pad");
  if (!pad) return;
  var field = document.getElementById("signature");
  var clear = document.getElementById("clear");
  var ink = pad.getContext("2d");
  function pen() {
    ink.lineWidth = 3;
    ink.lineCap = "round";
    ink.lineJoin = "round";
    ink.strokeStyle = "#000";
    ink.fillStyle = "#000";
  }
  pen();
  var drawing = false, marked = false, typed = "";
  function at(e) {
    var r = pad.getBoundingClientRect();
    return [(e.clientX - r.left) * pad.width / r.width, (e.clientY - r.top) * pad.height / r.height];
  }
  function wipe() {
    ink.clearRect(0, 0, pad.width, pad.height);
    field.value = "";
    marked = false;
    typed = "";
  }
  pad.addEventListener("pointerdown", function (e) {
    if (typed) wipe();
    drawing = true;
    pad.setPointerCapture(e.pointerId);
    var p = at(e);
    ink.beginPath();
    ink.moveTo(p[0], p[1]);
    e.preventDefault();
  });
  pad.addEventListener("pointermove", function (e) {
    if (!drawing) return;
    var p = at(e);
    ink.lineTo(p[0], p[1]);
    ink.stroke();
    marked = true;
    e.preventDefault();
  });
  function end() {
    if (!drawing) return;
    drawing = false;
    if (marked) field.value = pad.toDataURL("image/png");
  }
  pad.addEventListener("pointerup", end);
  pad.addEventListener("pointercancel", end);
  // The keyboard signs too: typed letters are written on the pad in a
  // handwriting face, Backspace takes one back, Escape clears.
  pad.addEventListener("keydown", function (e) {
    if (e.key === "Tab" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "Escape") { wipe(); return; }
    if (e.key === "Backspace") typed = typed.slice(0, -1);
    else if (e.key.length === 1 && typed.length < 40) typed += e.key;
    else return;
    e.preventDefault();
    ink.clearRect(0, 0, pad.width, pad.height);
    field.value = "";
    marked = false;
    if (!typed.trim()) return;
    var size = 56;
    do {
      ink.font = "italic " + size + "px cursive, serif";
      size -= 4;
    } while (size > 20 && ink.measureText(typed).width > pad.width - 20);
    ink.fillText(typed, 10, pad.height * 0.62);
    marked = true;
    field.value = pad.toDataURL("image/png");
  });
  clear.addEventListener("click", wipe);
  // A signature kept from the last send is drawn again.
  if (field.value.indexOf("data:image/png;base64,") === 0) {
    var kept = new Image();
    kept.onload = function () { ink.drawImage(kept, 0, 0, pad.width, pad.height); marked = true; };
    kept.src = field.value;
  }
  document.getElementById("padbox").hidden = false;
  document.getElementById("nopad").hidden = true;
})();
