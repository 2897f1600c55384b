// The benchmarks' mail server: a lean SMTP sink (RFC 5321 without TLS or auth; PIPELINING and
// 8BITMIME announced) that accepts every message and keeps only counts, so bench/checkout.sh
// can send the paid orders' mail for real and check that every one arrived. A message's data is
// scanned for its end with Buffer.indexOf (not split into lines): the sink shares the machine's
// cores with the server it measures.
//
//   node bench/smtp-sink.mjs PORT STATUS_PORT
//
// GET http://127.0.0.1:STATUS_PORT/ answers {"messages", "bytes", "connections", "cpuMs"}.
import http from 'node:http';
import net from 'node:net';

const [port, statusPort] = process.argv.slice(2).map(Number);
const stats = { messages: 0, bytes: 0, connections: 0, withAttachment: 0 };
const END = Buffer.from('\r\n.\r\n');
const ATTACHED = Buffer.from('Content-Disposition: attachment');

net.createServer((socket) => {
  stats.connections += 1;
  let pending = Buffer.alloc(0);
  let inData = false;
  const reply = (lines) => socket.write(lines);
  reply('220 sink.bench ESMTP ready\r\n');
  socket.on('data', (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let out = '';
    for (;;) {
      if (inData) {
        // The data ends with CRLF.CRLF; the DATA reply's CRLF is the line before it.
        const end = pending.indexOf(END);
        if (end < 0) break;
        const body = pending.subarray(0, end);
        stats.messages += 1;
        stats.bytes += end;
        if (body.indexOf(ATTACHED) >= 0) stats.withAttachment += 1;
        pending = pending.subarray(end + END.length);
        inData = false;
        out += '250 2.0.0 queued\r\n';
        continue;
      }
      const i = pending.indexOf('\r\n');
      if (i < 0) break;
      const line = pending.toString('latin1', 0, i);
      pending = pending.subarray(i + 2);
      const cmd = line.slice(0, 4).toUpperCase();
      if (cmd === 'EHLO') out += '250-sink.bench\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n';
      else if (cmd === 'HELO') out += '250 sink.bench\r\n';
      else if (cmd === 'MAIL' || cmd === 'RCPT' || cmd === 'RSET' || cmd === 'NOOP') out += '250 OK\r\n';
      else if (cmd === 'DATA') {
        inData = true;
        // What came before the data (a CRLF the terminator search needs) is part of it.
        pending = Buffer.concat([Buffer.from('\r\n'), pending]);
        out += '354 go ahead\r\n';
      } else if (cmd === 'QUIT') {
        socket.end('221 bye\r\n');
        return;
      } else out += '502 not implemented\r\n';
    }
    if (out) reply(out);
  });
  socket.on('error', () => {});
}).listen(port, '127.0.0.1');

http.createServer((_, res) => {
  const cpu = process.cpuUsage();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ ...stats, cpuMs: (cpu.user + cpu.system) / 1000 }));
}).listen(statusPort, '127.0.0.1');
