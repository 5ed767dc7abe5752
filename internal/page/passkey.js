(function () {
  var form = document.getElementById("passkey-form");
  var data = document.getElementById("passkey-options");
  if (!form || !data || !window.PublicKeyCredential) return;
  var options = JSON.parse(data.textContent);
  function bytes(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var b = atob(s), a = new Uint8Array(b.length);
    for (var i = 0; i < b.length; i++) a[i] = b.charCodeAt(i);
    return a.buffer;
  }
  function text(buf) {
    var b = new Uint8Array(buf), s = "";
    for (var i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var pk = options.publicKey, create = form.getAttribute("data-mode") === "create";
    pk.challenge = bytes(pk.challenge);
    if (create) pk.user.id = bytes(pk.user.id);
    (pk.excludeCredentials || pk.allowCredentials || []).forEach(function (c) { c.id = bytes(c.id); });
    var ask = create ? navigator.credentials.create({ publicKey: pk }) : navigator.credentials.get({ publicKey: pk });
    ask.then(function (c) {
      var r = { id: c.id, rawId: text(c.rawId), type: c.type, response: { clientDataJSON: text(c.response.clientDataJSON) } };
      if (create) {
        r.response.attestationObject = text(c.response.attestationObject);
      } else {
        r.response.authenticatorData = text(c.response.authenticatorData);
        r.response.signature = text(c.response.signature);
        if (c.response.userHandle) r.response.userHandle = text(c.response.userHandle);
      }
      form.elements.credential.value = JSON.stringify(r);
      form.submit();
    }, function (e) {
      var p = document.getElementById("passkey-problem");
      if (p) p.textContent = "The passkey did not work (" + e.name + "). You can ask for a sign-in link by email instead.";
    });
  });
})();
