// SPDX-License-Identifier: ISC
// Full TLS 1.3 handshakes over one key exchange group, for bench.py's
// hybrid rows: tlsload (BearSSL's client) and Debian's OpenSSL 3.0 offer
// no post-quantum hybrid; a Node 24 (OpenSSL 3.5) does.
//
// usage: node hsload.js PORT GROUP CONNS SECONDS
//
// CONNS connections at a time, each a new one as the last ends, none
// offering a session, for SECONDS; then it waits for those in flight.
// A handshake counts once the server's ticket has come: the sign that it
// took the client's Finished (secureConnect fires before).  One that was
// served over another group, or resumed, counts as wrong, not as done:
// the row must measure the group it names.  Prints key=value lines.
"use strict";
const tls = require("tls");

const [port, group, conns, seconds] = process.argv.slice(2);
if (!port || !group || !(+conns > 0) || !(+seconds > 0)) {
  console.error("usage: node hsload.js PORT GROUP CONNS SECONDS");
  process.exit(2);
}
const t0 = process.hrtime.bigint();
const end = t0 + BigInt(Math.round(+seconds * 1e9));
const cpu0 = process.cpuUsage();
const got = {done: 0, errors: 0, wrong: 0};
const seen = {};
let live = 0;
let lastError = "";

function one() {
  if (process.hrtime.bigint() >= end) {
    if (--live === 0)
      report();
    return;
  }
  let ended = false;
  const finish = (what) => {
    if (ended)
      return;
    ended = true;
    got[what]++;
    s.destroy();
    setImmediate(one);
  };
  const s = tls.connect({host: "127.0.0.1", port: +port, ecdhCurve: group,
                         minVersion: "TLSv1.3", rejectUnauthorized: false,
                         servername: "localhost"});
  s.setTimeout(10000, () => {
    lastError = "timeout";
    finish("errors");
  });
  s.on("secureConnect", () => {
    const name = (s.getEphemeralKeyInfo() || {}).name || "none";
    seen[name] = (seen[name] || 0) + 1;
    if (name !== group || s.isSessionReused())
      finish("wrong");
  });
  s.on("session", () => finish("done"));
  s.on("error", (e) => {
    lastError = e.message;
    finish("errors");
  });
  s.on("close", () => {
    lastError = lastError || "closed before the ticket";
    finish("errors");
  });
}

function report() {
  const dt = Number(process.hrtime.bigint() - t0) / 1e9;
  const c = process.cpuUsage(cpu0);
  console.log("openssl=%s", process.versions.openssl);
  console.log("group=%s", group);
  console.log("served=%s", Object.keys(seen).sort().map(
    (k) => k + ":" + seen[k]).join(",") || "none");
  console.log("conns=%d", got.done);
  console.log("errors=%d", got.errors);
  console.log("wrong=%d", got.wrong);
  console.log("elapsed_s=%s", dt.toFixed(3));
  console.log("handshakes_per_s=%s", (got.done / dt).toFixed(1));
  console.log("cpu_util=%s", ((c.user + c.system) / 1e6 / dt).toFixed(2));
  if (got.errors)
    console.log("last_error=%s", JSON.stringify(lastError));
}

for (let i = 0; i < +conns; i++) {
  live++;
  one();
}
