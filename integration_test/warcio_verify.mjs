// Reads WARC files with webrecorder's warcio.js, an independent reader,
// and checks every record's digests. Used by warc_test.go, which installs
// warcio from npm and runs:
//
//   node warcio_verify.mjs FILE...
//
// Prints one JSON object per record (type, target URI, record ID,
// Content-Type, Content-Length, the HTTP status or method, the digests'
// verdicts, the SHA-256 of the decoded content), then a summary line; exits
// 1 when a record fails to parse or a digest does not match.
import { createReadStream } from "node:fs";
import { createHash } from "node:crypto";
import { WARCParser } from "warcio";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

// base32 encodes bytes as RFC 4648 base32, with padding.
function base32(bytes) {
  let out = "", bits = 0, value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  while (out.length % 8) out += "=";
  return out;
}

// digests streams a record's bytes (an async iterable of chunks) and
// returns their WARC SHA-1 digest, their SHA-256 in hex, and their length.
async function digests(chunks) {
  const s1 = createHash("sha1"), s256 = createHash("sha256");
  let length = 0;
  for await (const c of chunks) {
    s1.update(c);
    s256.update(c);
    length += c.length;
  }
  return { sha1: "sha1:" + base32(s1.digest()), sha256: s256.digest("hex"), length };
}

let failures = 0;
function fail(msg) {
  failures++;
  console.error("FAIL " + msg);
}

async function verify(file) {
  // Pass 1: raw blocks, for WARC-Block-Digest (and the payload digest of
  // records that are not HTTP messages: their payload is the block).
  const blocks = [];
  for await (const rec of new WARCParser(createReadStream(file), { parseHttp: false })) {
    const block = await digests(rec.reader);
    const h = rec.warcHeaders.headers;
    const info = {
      file,
      type: rec.warcType,
      uri: rec.warcTargetURI || null,
      id: h.get("WARC-Record-ID"),
      date: rec.warcDate,
      contentType: h.get("Content-Type"),
      length: Number(h.get("Content-Length")),
      concurrentTo: h.get("WARC-Concurrent-To") || null,
      warcinfoID: h.get("WARC-Warcinfo-ID") || null,
      ip: h.get("WARC-IP-Address") || null,
      truncated: h.get("WARC-Truncated") || null,
      blockDigest: "missing",
      payloadDigest: "none",
    };
    if (block.length !== info.length) fail(`${file} ${info.id}: block of ${block.length} bytes, Content-Length ${info.length}`);
    const bd = h.get("WARC-Block-Digest");
    if (bd) {
      info.blockDigest = bd === block.sha1 ? "ok" : "BAD";
      if (info.blockDigest !== "ok") fail(`${file} ${info.id}: WARC-Block-Digest ${bd}, computed ${block.sha1}`);
    } else {
      fail(`${file} ${info.id}: no WARC-Block-Digest`);
    }
    const pd = h.get("WARC-Payload-Digest");
    if (rec.warcType === "revisit") {
      // WARC 1.1 §6.7.2: a revisit's payload digest is the earlier
      // record's, whose payload it does not hold: it must name that record.
      info.payloadDigest = pd && h.get("WARC-Refers-To") ? "refers" : "BAD";
      if (info.payloadDigest !== "refers") fail(`${file} ${info.id}: a revisit without WARC-Payload-Digest and WARC-Refers-To`);
    } else if (pd && !String(info.contentType).startsWith("application/http")) {
      info.payloadDigest = pd === block.sha1 ? "ok" : "BAD";
      if (info.payloadDigest !== "ok") fail(`${file} ${info.id}: WARC-Payload-Digest ${pd}, computed ${block.sha1}`);
      info.contentSHA256 = block.sha256;
    }
    blocks.push(info);
  }
  // Pass 2: HTTP messages parsed by warcio, for the status line and the
  // payload digest over the entity body as recorded. Pass 3: the content
  // warcio decodes from it (chunking and Content-Encoding undone), hashed
  // for the test to compare with the file served.
  for (const pass of [2, 3]) {
    let i = 0;
    for await (const rec of new WARCParser(createReadStream(file), { parseHttp: true })) {
      const info = blocks[i++];
      if (!info || info.id !== rec.warcHeaders.headers.get("WARC-Record-ID")) {
        fail(`${file}: the passes disagree at record ${i}`);
        break;
      }
      if (rec.warcType !== "response" && rec.warcType !== "request") {
        await rec.skipFully();
        continue;
      }
      if (!rec.httpHeaders) {
        if (pass === 2) fail(`${file} ${info.id}: warcio found no HTTP head`);
        continue;
      }
      if (pass === 3) {
        if (rec.warcType === "response") info.contentSHA256 = (await digests(rec.contentReader)).sha256;
        else await rec.skipFully();
        continue;
      }
      if (rec.warcType === "response") {
        info.status = rec.httpHeaders.statusCode;
        info.contentEncoding = rec.httpHeaders.headers.get("Content-Encoding") || null;
      } else {
        info.method = rec.httpHeaders.method;
      }
      const payload = await digests(rec.reader);
      const pd = rec.warcPayloadDigest;
      if (pd) {
        info.payloadDigest = pd === payload.sha1 ? "ok" : "BAD";
        if (info.payloadDigest !== "ok") fail(`${file} ${info.id}: WARC-Payload-Digest ${pd}, computed ${payload.sha1}`);
      }
    }
  }
  for (const info of blocks) console.log(JSON.stringify(info));
  return blocks.length;
}

let records = 0;
for (const file of process.argv.slice(2)) {
  try {
    records += await verify(file);
  } catch (e) {
    fail(`${file}: ${e.stack || e}`);
  }
}
console.log(`warcio.js: ${records} records read, ${failures} failures`);
process.exit(failures ? 1 : 0);
