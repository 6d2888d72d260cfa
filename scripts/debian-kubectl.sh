#!/usr/bin/env bash
# Prints the path of Debian's kubectl (the kubernetes-client package), which the exec-credential
# test configures through a kubeconfig `exec` entry. When the package is installed, that is
# /usr/bin/kubectl. Otherwise the package is fetched from Debian's archive (apt-get download)
# and unpacked into .build-kubectl, once: nothing outside that folder changes, so another
# kubectl the machine has (one from another archive, which would conflict with the package)
# stays as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

if dpkg-query -W -f='${Status}' kubernetes-client 2>/dev/null | grep -q "install ok installed"; then
    echo /usr/bin/kubectl
    exit 0
fi
root=.build-kubectl
if [ ! -x "$root/usr/bin/kubectl" ]; then
    echo "debian-kubectl: unpacking Debian's kubernetes-client into $root" >&2
    staging=$(mktemp -d)
    trap 'rm -rf "$staging"' EXIT
    chmod 755 "$staging"
    (cd "$staging" && apt-get download -q kubernetes-client >/dev/null 2>&1) || {
        [ "$(id -u)" -eq 0 ] || { echo "debian-kubectl: apt-get download kubernetes-client failed" >&2; exit 1; }
        apt-get update -qq && (cd "$staging" && apt-get download -q kubernetes-client >/dev/null 2>&1)
    }
    rm -rf "$root"
    dpkg -x "$staging"/kubernetes-client_*.deb "$root"
fi
echo "$(pwd)/$root/usr/bin/kubectl"
