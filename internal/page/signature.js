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
