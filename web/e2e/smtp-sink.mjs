// A local SMTP server that keeps every message it receives (RFC 5321, no TLS, no auth), so the
// end-to-end run can read the mail the platform sends. It can refuse chosen recipients (550), so a
// delivery can fail on purpose.
import net from "node:net";

export async function startSmtpSink() {
  const mails = [];
  const waiters = [];
  const refused = new Set();
  const server = net.createServer((socket) => {
    socket.setEncoding("utf8");
    let buffer = "";
    let inData = false;
    let data = [];
    let from = "";
    let to = [];
    const reply = (line) => socket.write(`${line}\r\n`);
    reply("220 sink.local ESMTP ready");
    socket.on("data", (chunk) => {
      buffer += chunk;
      let i;
      while ((i = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            const mail = { from, to, raw: data.join("\r\n") };
            mails.push(mail);
            for (const w of waiters.splice(0)) w();
            reply("250 OK queued");
            data = [];
          } else {
            data.push(line.startsWith("..") ? line.slice(1) : line);
          }
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === "EHLO") reply("250-sink.local\r\n250-8BITMIME\r\n250 SMTPUTF8");
        else if (cmd === "HELO") reply("250 sink.local");
        else if (cmd === "MAIL") {
          from = line.slice(10).replace(/[<>]/g, "").trim();
          to = [];
          reply("250 OK");
        } else if (cmd === "RCPT") {
          const rcpt = line.slice(8).replace(/[<>]/g, "").trim();
          if (refused.has(rcpt.toLowerCase())) {
            reply(`550 5.1.1 <${rcpt}>: mailbox unavailable`);
          } else {
            to.push(rcpt);
            reply("250 OK");
          }
        } else if (cmd === "DATA") {
          inData = true;
          reply("354 End data with <CR><LF>.<CR><LF>");
        } else if (cmd === "QUIT") {
          reply("221 Bye");
          socket.end();
        } else if (cmd === "RSET" || cmd === "NOOP") reply("250 OK");
        else reply("502 Command not implemented");
      }
    });
    socket.on("error", () => {});
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    /** The newest mail to `to` that `match` takes (any, by default), waiting up to `ms`. One
     * address gets several kinds of mail (a confirmation code, a reset link): `match` picks one. */
    async waitFor(to, ms = 15000, match = () => true) {
      const end = Date.now() + ms;
      for (;;) {
        const m = mails.findLast((x) => x.to.includes(to) && match(x));
        if (m) return m;
        if (Date.now() > end) throw new Error(`no mail to ${to}${match.label ? ` holding ${match.label}` : ""} within ${ms} ms`);
        await new Promise((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
      }
    },
    /** Answers 550 to RCPT TO `address` until `accept(address)`. */
    refuse: (address) => refused.add(address.toLowerCase()),
    accept: (address) => refused.delete(address.toLowerCase()),
    close: () => new Promise((r) => server.close(r)),
  };
}

/** The decoded `type` part of a mail (`text/plain`, `text/html`): the first such part, through
 * nested multiparts (alternative inside mixed), with quoted-printable or base64 undone; "" when
 * it has none. */
export function mailPart(raw, type) {
  const [head, ...rest] = raw.split("\r\n\r\n");
  const body = rest.join("\r\n\r\n");
  const unfolded = head.replace(/\r\n[ \t]+/g, " ");
  const boundary = /content-type:\s*multipart\/[^;]+;[^\r\n]*boundary="?([^";\r\n]+)"?/i.exec(unfolded)?.[1];
  if (boundary) {
    const parts = body
      .split(`--${boundary}`)
      .slice(1)
      .filter((p) => !p.startsWith("--"))
      .map((p) => p.replace(/^\r\n/, "").replace(/\r\n$/, ""));
    for (const p of parts) {
      const found = mailPart(p, type);
      if (found) return found;
    }
    return "";
  }
  const own = /^content-type:\s*([^;\s]+)/im.exec(unfolded)?.[1]?.toLowerCase() ?? "text/plain";
  if (own !== type) return "";
  if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) {
    const bytes = body.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, h) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  }
  if (/content-transfer-encoding:\s*base64/i.test(head)) return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  return body;
}

/** The decoded text of a mail: its first text/plain part. */
export function mailText(raw) {
  return mailPart(raw, "text/plain");
}

/** A mail whose text holds `needle` (for `waitFor`'s `match`). */
export function holding(needle) {
  return Object.assign((mail) => mailText(mail.raw).includes(needle), { label: JSON.stringify(needle) });
}

/** The confirmation link of an email confirmation mail, its identity and its six-digit code. */
export function confirmation(mail) {
  const text = mailText(mail.raw);
  const m = /https?:\/\/[^\s"<>]+verify-email\?identity=([0-9a-f-]+)&(?:amp;)?code=(\d{6})/.exec(text);
  if (!m) throw new Error(`no confirmation link in the mail:\n${text}`);
  return { link: m[0].replace("&amp;", "&"), identity: m[1], code: m[2] };
}
