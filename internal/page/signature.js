(function () {
  var pad = document.getElementById("pad");
  if (!pad) return;
  var field = document.getElementById("signature");
  var clear = document.getElementById("clear");
  var ink = pad.getContext("2d");
  ink.lineWidth = 3;
  ink.lineCap = "round";
  ink.lineJoin = "round";
  ink.strokeStyle = "#000";
  var drawing = false, marked = false;
  function at(e) {
    var r = pad.getBoundingClientRect();
    return [(e.clientX - r.left) * pad.width / r.width, (e.clientY - r.top) * pad.height / r.height];
  }
  pad.addEventListener("pointerdown", function (e) {
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
  clear.addEventListener("click", function () {
    ink.clearRect(0, 0, pad.width, pad.height);
    field.value = "";
    marked = false;
  });
  document.getElementById("padbox").hidden = false;
  document.getElementById("nopad").hidden = true;
})();
