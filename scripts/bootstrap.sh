#!/usr/bin/env bash
# Installs the Debian packages Coffer needs, when any are missing.
#   scripts/bootstrap.sh build   what `make demo` needs: the C libraries and pkg-config
#   scripts/bootstrap.sh test    that, plus a Secret Service (gnome-keyring), secret-tool, D-Bus, python3
#                                and pip (scripts/oidc-deps.sh installs the OpenID test server with it),
#                                python-keyring, zsh, fish and hyperfine, swtpm and tpm2-tools, git, lighttpd,
#                                Debian's docker credential helpers, gcc, and the Secret Service clients
#                                the provider's tests drive (Seahorse under Xvfb among them), pamtester
#                                with cwrap's pam_wrapper and nss_wrapper for the PAM module's tests,
#                                perl and node (scripts for the identity tests), and the pinentry
#                                programs the pinentry prompter runs (in tmux and under Xvfb), and
#                                bubblewrap, openssh-server and -client and podman for `agent share`'s tests,
#                                and openssl for the token broker's kubectl test (Debian's kubectl: scripts/debian-kubectl.sh)
set -euo pipefail

packages=(pkg-config libsodium-dev libsqlite3-dev libsecret-1-dev)
packages+=(libglib2.0-dev libgcrypt20-dev)  # the Secret Service provider: GDBus, Diffie-Hellman and AES-CBC
packages+=(libpam0g-dev)      # pam_coffer.so, the PAM module that unlocks the login vault: Linux-PAM's headers
if [ "${1:-build}" = test ]; then
    packages+=(gnome-keyring libsecret-tools dbus dbus-daemon python3 procps)
    packages+=(python3-oauthlib)  # the OAuth interop test's independent server (oauthlib)
    packages+=(python3-pip)       # installs the OpenID test server (django-oauth-toolkit) from PyPI
    packages+=(python3-keyring)   # an independent writer of Secret Service items, for `coffer import`
    packages+=(zsh fish)          # the completion scripts are loaded by the shells they are for
    packages+=(hyperfine curl)    # make bench-cli (curl follows the dev backend's login for `coffer token`)
    packages+=(mandoc)            # make man (run by make test) checks the pages
    packages+=(systemd)           # systemd-analyze and systemd-socket-activate check the agent's units;
                                  # systemd-creds seals systemd-creds key slots
    packages+=(swtpm swtpm-tools tpm2-tools libtss2-tcti-swtpm0)  # a TPM2 emulated on loopback for the TPM2 slot tests
    packages+=(git lighttpd)      # the git credential helper's tests: git over smart HTTP behind lighttpd
    packages+=(golang-docker-credential-helpers)  # the docker helper's reference: docker-credential-secretservice
    packages+=(gcc)               # make bench-cli builds git's libsecret credential helper from git's own source
    # Clients of the Secret Service provider, none written here: python-secretstorage (with jeepney,
    # which the torture campaign's client uses too); Debian's docker helper and git's libsecret helper
    # (built with gcc from the source the git package ships) are above.
    packages+=(python3-secretstorage python3-jeepney)
    # Seahorse, the desktop's view of the Secret Service, under Xvfb, read through AT-SPI: the
    # locked-collection test checks that it lists the locked login collection and unlocks it.
    packages+=(seahorse xvfb xauth at-spi2-core python3-pyatspi)
    # pam_coffer.so's tests log in with no real login and no system user: pamtester drives PAM,
    # cwrap's pam_wrapper reads the tests' own service files (pam_matrix checks the password),
    # nss_wrapper gives the module a user from the tests' own passwd file.
    packages+=(pamtester libpam-wrapper libnss-wrapper)
    # The caller-identity tests run scripts under these interpreters (python3 and the shells are
    # above); setpriv, unshare, pivot_root and mount come with util-linux and mount (essential).
    packages+=(perl nodejs)
    # GnuPG's prompt programs, which `coffer prompter pinentry` runs: the terminal ones driven in
    # tmux (capture-pane, send-keys), the GNOME one under Xvfb (its dialog is gcr's, read and
    # pressed through AT-SPI; ImageMagick's import takes the screenshot in docs/images).
    packages+=(pinentry-tty pinentry-curses pinentry-gnome3 gcr tmux imagemagick)
    # `coffer agent share` is tested with the sandboxes and remote hosts it serves: bubblewrap
    # with only the shared socket bound in; a loopback sshd of the test's own (its own config,
    # host key and authorized key) reached with `ssh -R`; podman (from its --rootfs, no image),
    # which the test tries and says why it skips where the machine cannot run it. The Secret
    # Service from a share (`agent start --secret-service --upstream`) runs in bubblewrap under
    # dbus-run-session, driven by secret-tool, python3-keyring and python3-secretstorage (above).
    packages+=(bubblewrap openssh-server openssh-client podman)
    # The token broker's kubectl test: Debian's kubectl (kubernetes-client, which
    # scripts/debian-kubectl.sh unpacks into .build-kubectl when it is not installed, so that it
    # never conflicts with another kubectl the machine has) runs `coffer token --exec-credential`
    # as its exec credential plugin; a certificate for its loopback HTTPS stand-in API server
    # comes from openssl.
    packages+=(openssl)
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "bootstrap: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "bootstrap: Coffer needs these Debian packages: ${missing[*]}" >&2
    echo "bootstrap: install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
