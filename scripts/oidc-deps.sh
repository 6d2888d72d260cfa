#!/usr/bin/env bash
# Installs the Python packages of the OpenID Connect test server (django-oauth-toolkit and its
# pinned dependencies: Tests/CofferAuthTests/Fixtures/oidc-requirements.txt) into
# .build-oidc/pydeps, with pip --target: nothing outside that folder changes, and Debian's
# "externally managed" rule (PEP 668) does not apply to a private target.
#
# It installs once, then again only when the requirements or the Python interpreter change
# (a stamp holds the hash of both). Prints the folder's absolute path on stdout; the tests read
# it from COFFER_OIDC_SITE (scripts/test.sh exports it) and run the same interpreter, which
# is written to .build-oidc/pydeps/.python.
#   COFFER_OIDC_PYTHON   the interpreter to use (default /usr/bin/python3, else python3 on PATH)
set -euo pipefail
cd "$(dirname "$0")/.."

requirements=Tests/CofferAuthTests/Fixtures/oidc-requirements.txt
root=.build-oidc
site=$root/pydeps

python=${COFFER_OIDC_PYTHON:-}
if [ -z "$python" ]; then
    if [ -x /usr/bin/python3 ]; then python=/usr/bin/python3; else python=$(command -v python3 || true); fi
fi
[ -n "$python" ] || { echo "oidc-deps: python3 is missing (scripts/bootstrap.sh test installs it)" >&2; exit 1; }
python=$(command -v "$python")

key=$({ sha256sum <"$requirements"; "$python" -c 'import sys; print(sys.executable, sys.version)'; } | sha256sum | cut -d' ' -f1)
if [ -f "$site/.stamp" ] && [ "$(cat "$site/.stamp")" = "$key" ]; then
    echo "$(pwd)/$site"
    exit 0
fi

if ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "oidc-deps: $python has no pip; install python3-pip (scripts/bootstrap.sh test does)" >&2
    exit 1
fi

echo "oidc-deps: installing the test OpenID server's packages into $site with $python" >&2
mkdir -p "$root"
staging=$(mktemp -d "$root/pydeps.XXXXXX")
trap 'rm -rf "$staging"' EXIT
"$python" -m pip install --disable-pip-version-check --no-input --quiet --root-user-action=ignore \
    --only-binary=:all: --target "$staging" -r "$requirements" >&2
printf '%s\n' "$python" >"$staging/.python"
printf '%s\n' "$key" >"$staging/.stamp"
rm -rf "$site"
mv "$staging" "$site"
echo "$(pwd)/$site"
