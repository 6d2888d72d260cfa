#!/usr/bin/env python3
"""A stand-in for a Kubernetes API server, for kubectl's exec credential test: HTTPS on
127.0.0.1 (a port the kernel picks) with the certificate and key given, answering every GET
with 200 and {"ok": true} when it carries `Authorization: Bearer TOKEN` (TOKEN read from the
file given, at each request), and 401 otherwise. Prints the port, then one line per request on
stdout: the path and whether the token matched. Ends when stdin ends.

    kube_api_standin.py CERT KEY TOKEN_FILE
"""
import http.server
import ssl
import sys
import threading


def main():
    cert, key, token_file = sys.argv[1:4]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            with open(token_file) as f:
                expected = "Bearer " + f.read().strip()
            matched = self.headers.get("Authorization") == expected
            sys.stdout.write("%s %s\n" % (self.path, "authorized" if matched else "refused"))
            sys.stdout.flush()
            body = b'{"ok":true}' if matched else b'{"kind":"Status","code":401}'
            self.send_response(200 if matched else 401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    sys.stdout.write("%d\n" % server.server_address[1])
    sys.stdout.flush()

    def watch_stdin():
        while sys.stdin.buffer.read(4096):
            pass
        server.shutdown()

    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever(poll_interval=0.2)


if __name__ == "__main__":
    main()
