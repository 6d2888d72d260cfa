#!/usr/bin/env bash
# Builds pam_coffer.so, the PAM module (docs/login-unlock.md), from Sources/CPAMCoffer with the C
# compiler alone, into the folder given (default .build/pam).
#
# Not through SwiftPM: a dynamic library product of SwiftPM is linked by swiftc, which adds
# libswiftCore and the Swift runtime's registration object even to C-only code, and the module must
# load no Swift runtime into sshd or login (PAMModuleTests.testTheModuleLinksOnlyLibcAndLibpam).
# SwiftPM still compiles the same sources (target CPAMCoffer), with the package's warning check.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/pam}
compiler=${CC:-}
if [ -z "$compiler" ]; then
    for candidate in cc gcc clang; do
        if command -v "$candidate" >/dev/null; then compiler=$candidate; break; fi
    done
fi
[ -n "$compiler" ] || { echo "pam-module: no C compiler (cc, gcc or clang)" >&2; exit 1; }
mkdir -p "$out"
# -z now and relro as distributions build PAM modules; --no-undefined: every symbol from libc or libpam.
"$compiler" -std=gnu11 -O2 -g -fPIC -shared -Wall -Wextra -Werror -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
    -Wl,-z,relro,-z,now -Wl,--no-undefined -Wl,--as-needed \
    -I Sources/CPAMCoffer/include -o "$out/pam_coffer.so.tmp" Sources/CPAMCoffer/*.c -lpam
mv "$out/pam_coffer.so.tmp" "$out/pam_coffer.so"
echo "$out/pam_coffer.so"
