// A local fake of CloudPayments' payment widget (https://widget.cloudpayments.ru/bundles/cloudpayments.js)
// and TipTop Pay's (https://widget.tiptoppay.kz/bundles/widget.js), written from their public
// documentation: `new cp.CloudPayments({language}).pay(mode, options, {onSuccess, onFail, onComplete})`
// (TipTop Pay: `new tiptop.Widget(…)`), mode 'auth' or 'charge'; options publicId, description,
// amount, currency, accountId, invoiceId, email, requireEmail, skin, data. The real widget opens its
// card form in a frame; this one draws a small accessible dialog in the page, and its "Pay" asks the
// fake (`POST /widget/pay`), which records the payment and sends the provider's Pay notification to
// the shop exactly as the hosted page does.
(function () {
  "use strict";
  var here = document.currentScript ? new URL(document.currentScript.src).origin : "";

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      e.setAttribute(k, attrs[k]);
    });
    if (text != null) e.textContent = text;
    return e;
  }

  var WORDS = {
    ru: { title: "Оплата картой", card: "Номер карты", email: "E-mail для чека", pay: "Оплатить", close: "Закрыть", badEmail: "Укажите e-mail", cancelled: "Пользователь закрыл форму" },
    en: { title: "Card payment", card: "Card number", email: "Email for the receipt", pay: "Pay", close: "Close", badEmail: "Enter an email", cancelled: "User has cancelled" },
  };

  function Widget(init) {
    this.language = (init && init.language) || "ru-RU";
  }

  Widget.prototype.pay = function (mode, o, cb) {
    cb = cb || {};
    o = o || {};
    var w = WORDS[String(this.language).slice(0, 2) === "ru" ? "ru" : "en"];
    var finish = function (ok, reason) {
      if (ok) {
        if (cb.onSuccess) cb.onSuccess(o);
      } else if (cb.onFail) cb.onFail(reason, o);
      if (cb.onComplete) cb.onComplete({ success: ok, code: ok ? null : reason, message: ok ? null : reason, type: "payment" }, o);
    };
    var missing = [];
    if (mode !== "auth" && mode !== "charge") missing.push("mode (auth or charge)");
    if (!o.publicId) missing.push("publicId");
    if (!(Number(o.amount) > 0)) missing.push("amount");
    if (!o.currency) missing.push("currency");
    if (!o.description) missing.push("description");
    if (missing.length) {
      finish(false, "Invalid options: " + missing.join(", "));
      return;
    }
    var back = el("div", { "data-fake-widget": "cloudpayments", style: "position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;justify-content:center;background:rgba(0,0,0,.55)" });
    var box = el("div", { role: "dialog", "aria-modal": "true", "aria-labelledby": "fake-widget-title", "data-skin": o.skin || "classic", style: "background:#fff;color:#111;padding:24px;border-radius:12px;width:320px;max-width:92vw;font:16px/1.4 system-ui,sans-serif" });
    box.appendChild(el("h2", { id: "fake-widget-title", style: "margin:0 0 8px;font-size:20px" }, w.title));
    box.appendChild(el("p", { style: "margin:0" }, o.description));
    box.appendChild(el("p", { "data-fake-amount": "", style: "margin:4px 0 12px;font-weight:700" }, o.amount + " " + o.currency));
    var email = null;
    if (o.requireEmail) {
      box.appendChild(el("label", { for: "fake-widget-email", style: "display:block;font-size:14px" }, w.email));
      email = el("input", { id: "fake-widget-email", type: "email", autocomplete: "email", style: "display:block;width:100%;margin:4px 0 12px;padding:8px;border:1px solid #555;border-radius:6px;box-sizing:border-box" });
      email.value = o.email || "";
      box.appendChild(email);
    }
    box.appendChild(el("label", { for: "fake-widget-card", style: "display:block;font-size:14px" }, w.card));
    var card = el("input", { id: "fake-widget-card", inputmode: "numeric", autocomplete: "cc-number", style: "display:block;width:100%;margin:4px 0 12px;padding:8px;border:1px solid #555;border-radius:6px;box-sizing:border-box" });
    card.value = "4242 4242 4242 4242";
    box.appendChild(card);
    var error = el("p", { role: "alert", style: "color:#a00;margin:0 0 8px;min-height:1em" });
    box.appendChild(error);
    var pay = el("button", { type: "button", style: "padding:10px 16px;border:0;border-radius:8px;background:#1a7f37;color:#fff;font-weight:700;margin-right:8px" }, w.pay);
    var close = el("button", { type: "button", style: "padding:10px 16px;border:1px solid #555;border-radius:8px;background:#fff;color:#111" }, w.close);
    box.appendChild(pay);
    box.appendChild(close);
    back.appendChild(box);
    document.body.appendChild(back);
    var opener = document.activeElement;
    (email && !email.value ? email : pay).focus();
    var done = false;
    var shut = function () {
      done = true;
      back.remove();
      if (opener && opener.focus) opener.focus();
    };
    close.addEventListener("click", function () {
      shut();
      finish(false, w.cancelled);
    });
    back.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && !done) {
        shut();
        finish(false, w.cancelled);
      }
    });
    pay.addEventListener("click", function () {
      var address = email ? email.value.trim() : o.email || null;
      if (email && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(address)) {
        error.textContent = w.badEmail;
        email.setAttribute("aria-invalid", "true");
        email.focus();
        return;
      }
      pay.disabled = true;
      fetch(here + "/widget/pay", {
        method: "POST",
        headers: { "Content-Type": "text/plain" },
        body: JSON.stringify({ mode: mode, publicId: o.publicId, amount: Number(o.amount), currency: o.currency, description: o.description, invoiceId: o.invoiceId, accountId: o.accountId, email: address, skin: o.skin, requireEmail: !!o.requireEmail, data: o.data, card: card.value }),
      })
        .then(function (r) {
          return r.json();
        })
        .then(function (r) {
          if (r.success) {
            shut();
            finish(true);
          } else {
            pay.disabled = false;
            error.textContent = r.message || "declined";
          }
        })
        .catch(function (e) {
          pay.disabled = false;
          error.textContent = String(e);
        });
    });
  };

  // The older calls the documentation still lists: charge/auth(options, onSuccess, onFail).
  Widget.prototype.charge = function (o, ok, fail) {
    this.pay("charge", o, { onSuccess: ok, onFail: fail });
  };
  Widget.prototype.auth = function (o, ok, fail) {
    this.pay("auth", o, { onSuccess: ok, onFail: fail });
  };

  window.cp = window.cp || {};
  window.cp.CloudPayments = Widget;
  window.tiptop = window.tiptop || {};
  window.tiptop.Widget = Widget;
})();
