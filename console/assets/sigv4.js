// AWS Signature Version 4 in the browser, with WebCrypto. The console signs
// every request it sends, so it works the same against a server that
// verifies signatures (--credentials) and one that accepts any (the default:
// there the signature is not checked, but the credential scope still names
// the region, which picks the tables).

const enc = new TextEncoder();

// hex returns the lower-case hex of an ArrayBuffer.
function hex(buf) {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(data) {
  return hex(await crypto.subtle.digest("SHA-256", enc.encode(data)));
}

async function hmac(key, data) {
  const k = await crypto.subtle.importKey("raw", typeof key === "string" ? enc.encode(key) : key,
    { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, enc.encode(data));
}

// uriEncode is SigV4's URI encoding: everything but A-Z a-z 0-9 - _ . ~
// is percent-encoded with upper-case hex.
export function uriEncode(s) {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
}

// canSign reports whether this page can compute signatures: WebCrypto is
// only available in a secure context (https, or http on localhost).
export function canSign() {
  return typeof crypto !== "undefined" && crypto.subtle !== undefined;
}

// sign returns the headers that sign a request to this page's origin:
// method, path (already URI-encoded, e.g. "/"), query (an object of
// name -> value), headers (lower-case names; host and x-amz-date are
// added) and body, with creds {region, key, secret, token}. Without
// WebCrypto it returns a well-formed but unchecked signature, which only a
// server without --credentials accepts.
export async function sign({ method, path, query = {}, headers = {}, body = "" }, creds, now = new Date()) {
  const amzDate = now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${creds.region}/dynamodb/aws4_request`;
  const h = { ...headers, host: location.host, "x-amz-date": amzDate };
  if (creds.token) h["x-amz-security-token"] = creds.token;
  const names = Object.keys(h).sort();
  const signedHeaders = names.join(";");
  const out = { "x-amz-date": amzDate };
  if (creds.token) out["x-amz-security-token"] = creds.token;
  let signature = "0".repeat(64);
  if (canSign()) {
    const canonicalQuery = Object.keys(query).sort()
      .map((k) => uriEncode(k) + "=" + uriEncode(query[k])).join("&");
    const canonical = [method, path.split("/").map(uriEncode).join("/"),
      canonicalQuery, ...names.map((n) => n + ":" + String(h[n]).trim().replace(/ +/g, " ")), "",
      signedHeaders, await sha256(body)].join("\n");
    const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, await sha256(canonical)].join("\n");
    let key = await hmac("AWS4" + creds.secret, day);
    for (const part of [creds.region, "dynamodb", "aws4_request"]) key = await hmac(key, part);
    signature = hex(await hmac(key, toSign));
  }
  out.authorization = `AWS4-HMAC-SHA256 Credential=${creds.key}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return out;
}
