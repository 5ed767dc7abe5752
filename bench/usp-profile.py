"""Serve a USP platform profile (catalog, availability, bookings) over HTTPS.

bench/usp-wrk.sh runs it as the demo platform's profile host: usage
  python3 bench/usp-profile.py HOST:PORT CERT.pem KEY.pem
It answers GET /platform.json with the profile, cacheable for ten minutes
as the one in test/usp-check.mjs, and 404 for anything else.
"""
import http.server
import json
import ssl
import sys

VERSION = "2026-08-20"


def capability(schema):
    return [{
        "version": VERSION,
        "spec": "https://usp-protocol.dev/specification",
        "schema": f"https://usp-protocol.dev/schemas/services/{schema}.json",
    }]


PROFILE = json.dumps({"usp": {"version": VERSION, "capabilities": {
    "dev.usp-protocol.services.catalog": capability("catalog"),
    "dev.usp-protocol.services.availability": capability("availability"),
    "dev.usp-protocol.services.bookings": capability("booking"),
}}}).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/platform.json":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "public, max-age=600")
        self.send_header("Content-Length", str(len(PROFILE)))
        self.end_headers()
        self.wfile.write(PROFILE)

    def log_message(self, *args):
        pass


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    server = http.server.ThreadingHTTPServer((host, int(port)), Handler)
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
