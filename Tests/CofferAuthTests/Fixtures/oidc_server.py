#!/usr/bin/env python3
"""A disposable OpenID Connect / OAuth 2.0 authorization server for Coffer's tests.

Every OAuth and OpenID Connect behaviour comes from django-oauth-toolkit 3.4.1 (DOT) and
oauthlib 3.3.1, installed from PyPI: an implementation no one on Coffer wrote. This file only
wires Django up in one process (settings in code, a temporary SQLite database, a fresh RSA key),
seeds one user and four clients, and serves on 127.0.0.1 at a port the kernel picks. The few
test-only additions are marked TEST-ONLY below and are off unless a flag asks for them, except
the two that make DOT usable at all (the UserInfo claims and the prompt=none fix).

Install the packages once (scripts/oidc-deps.sh does this for `make test`):

    python3 -m pip install --disable-pip-version-check --no-input --only-binary=:all: \
        --target .build-oidc/pydeps -r Tests/CofferAuthTests/Fixtures/oidc-requirements.txt

Run:

    PYTHONPATH=.build-oidc/pydeps python3 Tests/CofferAuthTests/Fixtures/oidc_server.py \
        --quiet --exit-on-stdin-eof [flags]

(`--site DIR` or COFFER_OIDC_SITE=DIR work instead of PYTHONPATH.) The Swift tests start it
this way through OIDCTestServer (Tests/CofferTestSupport), holding stdin open so the server
ends with the test process.

stdout line 1: the issuer, e.g. ``http://127.0.0.1:43817/o``
stdout line 2: one JSON object: issuer, base_url, discovery, login_url,
    device_verification_uri, username, password, clients {native, native_consent, device,
    confidential, confidential_secret}, redirect_uri_path, test_hooks.
Then it serves until SIGTERM or SIGINT (or stdin's end with --exit-on-stdin-eof). Request
logs go to stderr unless --quiet.

Seeded (all RS256-signed ID tokens; user `coffer` / `coffer-password`, sub "1"):
    coffer-native          public, authorization code + PKCE, no consent page
    coffer-native-consent  public, authorization code + PKCE, consent page (allow / cancel)
    coffer-device          public, device authorization grant (DOT: one grant type per client)
    coffer-confidential    confidential (secret coffer-confidential-secret), authorization code
    coffer-exact           public, authorization code + PKCE, only with --exact-redirect-uri URI,
                           which is its one redirect URI (localhost: matched exactly, port included)
Redirect URIs: http://127.0.0.1/callback and http://[::1]/callback, any port (RFC 8252 §7.3,
DOT's own loopback rule).

DOT 3.4.1 behaviour worth knowing (see /work/notes/issue9/observed.md for the full record):
stock discovery lacks revocation_endpoint and device_authorization_endpoint; RFC 9207 `iss`
is added to successful authorization responses only, not to error redirects; refresh tokens
rotate, and replaying a rotated one revokes its whole family (reuse protection, on here);
the device token reply carries no ID token; DOT never answers `slow_down`, and a device code
only expires when someone submits its user code after 30 minutes.
"""

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

# `--site DIR` or $COFFER_OIDC_SITE: the pip --target folder, instead of PYTHONPATH.
_site = os.environ.get("COFFER_OIDC_SITE")
for _i, _arg in enumerate(sys.argv):
    if _arg == "--site" and _i + 1 < len(sys.argv):
        _site = sys.argv[_i + 1]
if _site:
    sys.path.insert(0, _site)

USERNAME = "coffer"
PASSWORD = "coffer-password"
EMAIL = "coffer@example.test"

CLIENT_NATIVE = "coffer-native"
CLIENT_CONSENT = "coffer-native-consent"
CLIENT_DEVICE = "coffer-device"
CLIENT_CONFIDENTIAL = "coffer-confidential"
CLIENT_CONFIDENTIAL_SECRET = "coffer-confidential-secret"
CLIENT_EXACT = "coffer-exact"

DEVICE_GRANT_TYPE = "urn:ietf:params:oauth:grant-type:device_code"

# Filled in by main(): the server's own origin, e.g. http://127.0.0.1:43817
BASE_URL = [""]

# Django's LoginView needs a template; this is the smallest one (a plain HTML form with the
# CSRF token, username, password and `next`).
LOGIN_TEMPLATE = """<!DOCTYPE html>
<html><head><title>Log in</title></head><body>
<form method="post" action="{{ request.path }}">
{% csrf_token %}
{{ form.as_p }}
<input type="hidden" name="next" value="{{ next }}">
<input type="submit" value="Log in">
</form></body></html>
"""


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--site", help="the folder of the pip --target install")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 (default): a free port")
    p.add_argument("--quiet", action="store_true", help="no request log on stderr")
    p.add_argument("--exit-on-stdin-eof", action="store_true",
                   help="shut down when stdin ends (the test process that holds it died)")
    # DOT settings.
    p.add_argument("--no-iss-in-callback", action="store_true",
                   help="no RFC 9207 iss in authorization responses")
    p.add_argument("--access-token-ttl", type=int, default=3600)
    p.add_argument("--id-token-ttl", type=int, default=3600)
    p.add_argument("--code-ttl", type=int, default=60)
    p.add_argument("--refresh-grace", type=int, default=0,
                   help="REFRESH_TOKEN_GRACE_PERIOD_SECONDS (0: a rotated token is dead at once)")
    p.add_argument("--no-reuse-protection", action="store_true",
                   help="REFRESH_TOKEN_REUSE_PROTECTION=False")
    p.add_argument("--device-interval", type=int, default=5, help="DEVICE_FLOW_INTERVAL")
    p.add_argument("--derive-issuer", action="store_true",
                   help="leave OIDC_ISS_ENDPOINT unset: DOT then derives the issuer from Host")
    # TEST-ONLY additions (not DOT behaviour).
    p.add_argument("--augment-discovery", action="store_true",
                   help="TEST-ONLY: add revocation_endpoint, device_authorization_endpoint, "
                        "introspection_endpoint and grant_types_supported to discovery")
    p.add_argument("--slow-down", action="store_true",
                   help="TEST-ONLY: answer slow_down to device polling faster than the interval")
    p.add_argument("--slow-down-increment", type=int, default=5,
                   help="TEST-ONLY: seconds --slow-down adds to a device code's interval")
    p.add_argument("--exact-redirect-uri", default=None,
                   help="also seed coffer-exact: a public client whose only redirect URI is this one; "
                        "DOT matches a localhost URI exactly, port included (no RFC 8252 relaxation)")
    p.add_argument("--test-hooks", action="store_true",
                   help="TEST-ONLY: POST /test/device-expire (form user_code=...) expires a device code; "
                        "GET /test/refresh-count answers how many refresh grants arrived and how many "
                        "DOT refused")
    p.add_argument("--refresh-delay", type=float, default=0,
                   help="TEST-ONLY (with --test-hooks): hold each refresh grant this many seconds "
                        "before DOT sees it")
    return p.parse_args()


# ---------------------------------------------------------------------------------------------
# DOT, configured. Everything OAuth/OpenID below is DOT's code; these are its settings.
# ---------------------------------------------------------------------------------------------

def configure(args, base_url, issuer, db_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from django.conf import settings

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()

    settings.configure(
        DEBUG=False,
        SECRET_KEY="coffer-test-server-not-secret-" + os.urandom(8).hex(),
        ALLOWED_HOSTS=["127.0.0.1", "localhost", "[::1]"],
        ROOT_URLCONF="__main__",
        INSTALLED_APPS=[
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "oauth2_provider",
        ],
        MIDDLEWARE=[
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
        ] + (["__main__.SlowDownMiddleware"] if args.slow_down else [])
          + (["__main__.RefreshCountMiddleware"] if args.test_hooks else []),
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": db_path,
                               "OPTIONS": {"timeout": 20}}},
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
        USE_TZ=True,
        TIME_ZONE="UTC",
        STATIC_URL="/static/",
        LOGIN_URL="/accounts/login/",
        # Fast hashing: a throw-away server with a published password.
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        TEMPLATES=[{
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [],
            "OPTIONS": {
                "loaders": [
                    ("django.template.loaders.locmem.Loader",
                     {"registration/login.html": LOGIN_TEMPLATE}),
                    "django.template.loaders.app_directories.Loader",
                ],
                "context_processors": [
                    "django.template.context_processors.request",
                    "django.contrib.auth.context_processors.auth",
                ],
            },
        }],
        LOGGING={"version": 1, "disable_existing_loggers": False,
                 "handlers": {"stderr": {"class": "logging.StreamHandler"}},
                 "loggers": {"oauth2_provider": {"handlers": ["stderr"], "level": "ERROR"},
                             "django": {"handlers": ["stderr"], "level": "ERROR"}}},
        OAUTH2_PROVIDER={
            "OIDC_ENABLED": True,
            # An explicit issuer: otherwise DOT derives it from each request's Host header, and
            # a client mixing 127.0.0.1 and localhost would see two issuers.
            "OIDC_ISS_ENDPOINT": "" if args.derive_issuer else issuer,
            "OIDC_RSA_PRIVATE_KEY": pem,
            "OAUTH2_VALIDATOR_CLASS": "__main__.CofferValidator",
            "SCOPES": {
                "openid": "OpenID Connect",
                "profile": "Profile",
                "email": "Email",
                "offline_access": "Offline access",
            },
            "DEFAULT_SCOPES": ["openid"],
            "PKCE_REQUIRED": True,
            "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,  # refuse code_challenge_method=plain
            "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": not args.no_iss_in_callback,
            "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
            "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
            "ROTATE_REFRESH_TOKEN": True,
            "REFRESH_TOKEN_REUSE_PROTECTION": not args.no_reuse_protection,
            "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": args.refresh_grace,
            "ACCESS_TOKEN_EXPIRE_SECONDS": args.access_token_ttl,
            "ID_TOKEN_EXPIRE_SECONDS": args.id_token_ttl,
            "AUTHORIZATION_CODE_EXPIRE_SECONDS": args.code_ttl,
            "REQUEST_APPROVAL_PROMPT": "force",
            "OIDC_RESPONSE_TYPES_SUPPORTED": ["code"],
            "OIDC_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": [
                "client_secret_basic", "client_secret_post", "none"],
            "OAUTH2_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": [
                "client_secret_basic", "client_secret_post", "none"],
            "OAUTH2_RESPONSE_TYPES_SUPPORTED": ["code"],
            "OAUTH2_GRANT_TYPES_SUPPORTED": ["authorization_code", "refresh_token", DEVICE_GRANT_TYPE],
            "OAUTH_DEVICE_VERIFICATION_URI": base_url + "/o/device/",
            "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": base_url + "/o/device/?user_code={user_code}",
            "DEVICE_FLOW_INTERVAL": args.device_interval,
        },
    )


def seed(exact_redirect_uri=None):
    from django.contrib.auth import get_user_model
    from oauth2_provider.models import get_application_model

    user = get_user_model().objects.create_user(USERNAME, EMAIL, PASSWORD,
                                                first_name="Coffer", last_name="Tester")
    App = get_application_model()
    # RFC 8252 §7.3: DOT ignores the port of http://127.0.0.1 and http://[::1] registrations
    # (scheme, host, path and query must still match exactly).
    loopback = "http://127.0.0.1/callback http://[::1]/callback"
    common = dict(user=user, algorithm=App.RS256_ALGORITHM)
    App.objects.create(client_id=CLIENT_NATIVE, name="Coffer native (no consent page)",
                       client_type=App.CLIENT_PUBLIC,
                       authorization_grant_type=App.GRANT_AUTHORIZATION_CODE,
                       redirect_uris=loopback, skip_authorization=True, client_secret="", **common)
    App.objects.create(client_id=CLIENT_CONSENT, name="Coffer native (consent page)",
                       client_type=App.CLIENT_PUBLIC,
                       authorization_grant_type=App.GRANT_AUTHORIZATION_CODE,
                       redirect_uris=loopback, skip_authorization=False, client_secret="", **common)
    App.objects.create(client_id=CLIENT_DEVICE, name="Coffer device",
                       client_type=App.CLIENT_PUBLIC,
                       authorization_grant_type=App.GRANT_DEVICE_CODE,
                       redirect_uris="", client_secret="", **common)
    App.objects.create(client_id=CLIENT_CONFIDENTIAL, name="Coffer confidential",
                       client_type=App.CLIENT_CONFIDENTIAL,
                       authorization_grant_type=App.GRANT_AUTHORIZATION_CODE,
                       redirect_uris=loopback, skip_authorization=True,
                       client_secret=CLIENT_CONFIDENTIAL_SECRET, **common)
    if exact_redirect_uri:
        App.objects.create(client_id=CLIENT_EXACT, name="Coffer exact redirect URI",
                           client_type=App.CLIENT_PUBLIC,
                           authorization_grant_type=App.GRANT_AUTHORIZATION_CODE,
                           redirect_uris=exact_redirect_uri, skip_authorization=True, client_secret="", **common)


def define_urls_and_validator(args):
    """What can only be defined after django.setup(): the validator and the URL patterns."""
    from django.contrib.auth import views as auth_views
    from django.http import HttpResponse, JsonResponse
    from django.urls import include, path
    from django.views.decorators.csrf import csrf_exempt
    from oauth2_provider import views as dot_views
    from oauth2_provider.oauth2_validators import OAuth2Validator

    class CofferValidator(OAuth2Validator):
        # TEST-ONLY, always on: DOT 3.4.1 does not implement these two oauthlib hooks, so every
        # prompt=none request answers 500 (NotImplementedError). DOT's view already answers
        # login_required itself when there is no session, so "silent login is possible" is True.
        def validate_silent_login(self, request):
            return True

        def validate_silent_authorization(self, request):
            return True

        # TEST-ONLY, always on: the standard claims of the ID token and UserInfo (DOT emits only
        # `sub` by itself). In this request-agnostic form (callables, no `request` argument)
        # DOT also lists them in discovery's claims_supported, and emits each one only when its
        # scope (profile: names; email: email) was granted.
        def get_additional_claims(self):
            return {
                "preferred_username": lambda r: r.user.get_username(),
                "name": lambda r: r.user.get_full_name() or r.user.get_username(),
                "given_name": lambda r: r.user.first_name,
                "family_name": lambda r: r.user.last_name,
                "email": lambda r: r.user.email,
                "email_verified": lambda r: True,
            }

    class AugmentedDiscovery(dot_views.ConnectDiscoveryInfoView):
        """TEST-ONLY (--augment-discovery): stock DOT discovery omits the revocation, device
        and introspection endpoints and grant_types_supported; many real providers publish
        them, so this adds them to DOT's own document."""

        def get(self, request, *args, **kwargs):
            data = json.loads(super().get(request, *args, **kwargs).content)
            root = BASE_URL[0]
            data.update({
                "revocation_endpoint": root + "/o/revoke_token/",
                "introspection_endpoint": root + "/o/introspect/",
                "device_authorization_endpoint": root + "/o/device-authorization/",
                "grant_types_supported": ["authorization_code", "refresh_token", DEVICE_GRANT_TYPE],
                "revocation_endpoint_auth_methods_supported": [
                    "client_secret_basic", "client_secret_post", "none"],
            })
            response = JsonResponse(data)
            response["Access-Control-Allow-Origin"] = "*"
            return response

    @csrf_exempt
    def device_expire(request):
        """TEST-ONLY (--test-hooks): POST user_code=... marks that device grant expired, so the
        next poll answers expired_token. (DOT only expires a grant when its user code is
        submitted after expiry; polling never looks at the clock, and expires_in is 1800.)"""
        from oauth2_provider.models import get_device_grant_model
        model = get_device_grant_model()
        updated = model.objects.filter(user_code=request.POST.get("user_code", "")).update(
            status=model.EXPIRED)
        return JsonResponse({"updated": updated})

    def refresh_count(request):
        """TEST-ONLY (--test-hooks): the refresh grants that reached the token endpoint, and
        how many of them DOT refused (RefreshCountMiddleware)."""
        with RefreshCountMiddleware.lock:
            return JsonResponse({"count": RefreshCountMiddleware.count, "refused": RefreshCountMiddleware.refused})

    def healthz(request):
        return HttpResponse("ok", content_type="text/plain")

    patterns = []
    if args.augment_discovery:  # TEST-ONLY; listed first, so it wins over DOT's own view
        patterns.append(path("o/.well-known/openid-configuration", AugmentedDiscovery.as_view()))
    patterns += [
        path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),  # DOT
        path("accounts/login/", auth_views.LoginView.as_view(), name="login"),  # Django
        path("healthz", healthz),
    ]
    if args.test_hooks:
        patterns.append(path("test/device-expire", device_expire))
        patterns.append(path("test/refresh-count", refresh_count))
    module = globals()
    module["CofferValidator"] = CofferValidator
    module["urlpatterns"] = patterns


class SlowDownMiddleware:
    """TEST-ONLY (--slow-down): DOT 3.4.1 never answers RFC 8628 `slow_down` (a TODO in its
    TokenView). This answers 400 slow_down when a device code is polled sooner than its
    current interval after the previous poll, and raises that code's interval by
    --slow-down-increment (RFC 8628 §3.5: clients add 5 s). Polls it lets through go to DOT."""

    polls = {}  # device_code -> (monotonic time of the last poll, current interval)
    lock = threading.Lock()
    base_interval = 5
    increment = 5

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (request.method == "POST" and request.path.endswith("/o/token/")
                and request.POST.get("grant_type") == DEVICE_GRANT_TYPE):
            code = request.POST.get("device_code", "")
            now = time.monotonic()
            with self.lock:
                last, interval = self.polls.get(code, (None, self.base_interval))
                too_fast = last is not None and now - last < interval
                if too_fast:
                    interval += self.increment
                self.polls[code] = (now, interval)
            if too_fast:
                from django.http import JsonResponse
                response = JsonResponse({"error": "slow_down",
                                         "error_description": "poll at most every %d s" % interval},
                                        status=400)
                response["Cache-Control"] = "no-store"
                return response
        return self.get_response(request)


class RefreshCountMiddleware:
    """TEST-ONLY (--test-hooks): counts the refresh grants that reach the token endpoint, and
    DOT's refusals of them (any 4xx), for GET /test/refresh-count; with --refresh-delay, holds
    each one that long before DOT sees it (a client can then be killed mid-refresh)."""

    count = 0
    refused = 0
    delay = 0.0
    lock = threading.Lock()

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        is_refresh = (request.method == "POST" and request.path.endswith("/o/token/")
                      and request.POST.get("grant_type") == "refresh_token")
        if not is_refresh:
            return self.get_response(request)
        with self.lock:
            RefreshCountMiddleware.count += 1
        if self.delay:
            time.sleep(self.delay)
        response = self.get_response(request)
        if 400 <= response.status_code < 500:
            with self.lock:
                RefreshCountMiddleware.refused += 1
        return response


# ---------------------------------------------------------------------------------------------
# Serving.
# ---------------------------------------------------------------------------------------------

def make_httpd(host, port, quiet):
    # Django's runserver classes: HTTP/1.1 with keep-alive, a thread per connection (wsgiref's
    # own server answers HTTP/1.0 and closes every connection).
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

    class Handler(WSGIRequestHandler):
        def log_message(self, format, *args):
            if not quiet:
                sys.stderr.write("%s %s\n" % (self.address_string(), format % args))

    return ThreadedWSGIServer((host, port), Handler, ipv6=":" in host)


def main():
    args = parse_args()
    httpd = make_httpd(args.host, args.port, args.quiet)
    port = httpd.server_address[1]
    host = args.host if ":" not in args.host else "[%s]" % args.host
    base_url = "http://%s:%d" % (host, port)
    issuer = base_url + "/o"
    BASE_URL[0] = base_url
    SlowDownMiddleware.base_interval = args.device_interval
    SlowDownMiddleware.increment = args.slow_down_increment
    RefreshCountMiddleware.delay = args.refresh_delay

    tmpdir = tempfile.mkdtemp(prefix="coffer-oidc-")

    def cleanup():
        shutil.rmtree(tmpdir, ignore_errors=True)

    try:
        configure(args, base_url, issuer, os.path.join(tmpdir, "db.sqlite3"))
        import django
        django.setup()
        define_urls_and_validator(args)
        from django.core.management import call_command
        call_command("migrate", verbosity=0, interactive=False)
        seed(args.exact_redirect_uri)
        from django.core.wsgi import get_wsgi_application
        httpd.set_app(get_wsgi_application())
    except BaseException:
        cleanup()
        raise

    ready = {
        "issuer": issuer,
        "base_url": base_url,
        "discovery": issuer + "/.well-known/openid-configuration",
        "login_url": base_url + "/accounts/login/",
        "device_verification_uri": base_url + "/o/device/",
        "username": USERNAME,
        "password": PASSWORD,
        "clients": {
            "native": CLIENT_NATIVE,
            "native_consent": CLIENT_CONSENT,
            "device": CLIENT_DEVICE,
            "confidential": CLIENT_CONFIDENTIAL,
            "confidential_secret": CLIENT_CONFIDENTIAL_SECRET,
        },
        "redirect_uri_path": "/callback",
        "test_hooks": bool(args.test_hooks),
    }
    sys.stdout.write(issuer + "\n" + json.dumps(ready) + "\n")
    sys.stdout.flush()

    def stop(*_):
        threading.Thread(target=httpd.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if args.exit_on_stdin_eof:
        def watch_stdin():
            try:
                while sys.stdin.buffer.read(4096):
                    pass
            except Exception:
                pass
            stop()
        threading.Thread(target=watch_stdin, daemon=True).start()
    try:
        httpd.serve_forever(poll_interval=0.2)
    finally:
        httpd.server_close()
        cleanup()


if __name__ == "__main__":
    main()
