"""A standard OAuth 2.0 server built on oauthlib's reference Server, for Coffer's interop test.

It is independent of Coffer: oauthlib implements RFC 6749 (password and client-credentials
grants, error replies), RFC 6750 (bearer tokens) and RFC 7009 (revocation). Coffer's client
must work against it exactly as against its own dev backend.

    python3 oauthlib_server.py      prints its port on the first line of stdout, then serves
                                    127.0.0.1 until stdin closes (so it never outlives the test)

Options: --refresh allows the refresh_token grant (RFC 6749 section 6; oauthlib rotates the
refresh token, and a spent one is refused); --expires-in N sets the access tokens' lifetime
(default 600 s).

Endpoints: POST /token, POST /revoke, GET /me (a protected resource), GET /stats (the number of
refresh_token grants answered, and refused: {"refreshes", "refused"}).
"""
import base64
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"  # loopback only, for the test
from oauthlib.oauth2 import RequestValidator, Server  # noqa: E402

USERS = {"alice": "alice-password"}
CLIENTS = {"interop-client": "interop secret/+&="}
TOKENS = {}  # access token -> {"user", "client", "expires"}
REFRESH_TOKENS = {}  # refresh token -> {"user", "client", "scopes"}
STATS = {"refreshes": 0, "refused": 0}
LOCK = threading.Lock()
ALLOWS_REFRESH = "--refresh" in sys.argv[1:]
EXPIRES_IN = int(sys.argv[sys.argv.index("--expires-in") + 1]) if "--expires-in" in sys.argv[1:] else 600


class Client:
    def __init__(self, client_id):
        self.client_id = client_id


class Validator(RequestValidator):
    def client_authentication_required(self, request, *args, **kwargs):
        return True

    def authenticate_client(self, request, *args, **kwargs):
        header = request.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return False
        try:
            decoded = base64.b64decode(header[6:]).decode("utf-8")
        except Exception:
            return False
        client_id, _, secret = decoded.partition(":")
        client_id, secret = urllib.parse.unquote_plus(client_id), urllib.parse.unquote_plus(secret)
        if CLIENTS.get(client_id) != secret:
            return False
        request.client = Client(client_id)
        request.client_id = client_id
        return True

    def authenticate_client_id(self, client_id, request, *args, **kwargs):
        return False

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        return grant_type in ("password", "client_credentials") or (ALLOWS_REFRESH and grant_type == "refresh_token")

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        with LOCK:
            entry = REFRESH_TOKENS.get(refresh_token)
            if entry is None or entry["client"] != client.client_id:
                STATS["refused"] += 1
                return False
            STATS["refreshes"] += 1
        request.user = entry["user"]
        return True

    def get_original_scopes(self, refresh_token, request, *args, **kwargs):
        with LOCK:
            return REFRESH_TOKENS[refresh_token]["scopes"]

    def validate_user(self, username, password, client, request, *args, **kwargs):
        if USERS.get(username) == password:
            request.user = username
            return True
        return False

    def validate_scopes(self, client_id, scopes, client, request, *args, **kwargs):
        return "forbidden" not in scopes

    def get_default_scopes(self, client_id, request, *args, **kwargs):
        return ["profile"]

    def save_bearer_token(self, token, request, *args, **kwargs):
        with LOCK:
            if getattr(request, "refresh_token", None):
                REFRESH_TOKENS.pop(request.refresh_token, None)  # rotated: the spent one is refused
            if "refresh_token" in token:
                REFRESH_TOKENS[token["refresh_token"]] = {
                    "user": getattr(request, "user", None), "client": request.client_id, "scopes": request.scopes}
            TOKENS[token["access_token"]] = {
                "user": getattr(request, "user", None),
                "client": request.client_id,
                "expires": time.time() + token.get("expires_in", 3600),
            }

    def validate_bearer_token(self, token, scopes, request):
        with LOCK:
            entry = TOKENS.get(token)
        if entry is None or entry["expires"] < time.time():
            return False
        request.user = entry["user"]
        request.client_id = entry["client"]
        request.scopes = scopes
        return True

    def revoke_token(self, token, token_type_hint, request, *args, **kwargs):
        with LOCK:
            TOKENS.pop(token, None)
            REFRESH_TOKENS.pop(token, None)


SERVER = Server(Validator(), token_expires_in=EXPIRES_IN)


class Handler(BaseHTTPRequestHandler):
    def _body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length).decode("utf-8") if length else ""

    def _reply(self, status, headers, body):
        payload = (body or "").encode("utf-8")
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self):
        uri = "http://%s%s" % (self.headers.get("Host"), self.path)
        if self.path == "/token":
            self._reply(*reversed_status(SERVER.create_token_response(uri, "POST", self._body(), dict(self.headers))))
        elif self.path == "/revoke":
            self._reply(*reversed_status(SERVER.create_revocation_response(uri, "POST", self._body(), dict(self.headers))))
        else:
            self._reply(404, {}, "")

    def do_GET(self):
        uri = "http://%s%s" % (self.headers.get("Host"), self.path)
        if self.path == "/stats":
            with LOCK:
                body = json.dumps(STATS)
            return self._reply(200, {"Content-Type": "application/json"}, body)
        if self.path != "/me":
            return self._reply(404, {}, "")
        valid, request = SERVER.verify_request(uri, "GET", None, dict(self.headers), scopes=[])
        if not valid:
            return self._reply(401, {"WWW-Authenticate": 'Bearer realm="interop"'}, "")
        body = json.dumps({"user": request.user, "client": request.client_id})
        self._reply(200, {"Content-Type": "application/json"}, body)

    def log_message(self, *args):
        pass  # no request lines: they would be noise in the test output


def reversed_status(response):
    headers, body, status = response
    return status, headers, body


def main():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    print(httpd.server_address[1], flush=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    sys.stdin.read()  # until the test closes stdin or ends
    httpd.shutdown()


if __name__ == "__main__":
    main()
