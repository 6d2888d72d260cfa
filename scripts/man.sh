#!/usr/bin/env bash
# make man: the manual pages, generated from the commands themselves (swift-argument-parser's
# generate-manual), into .build/man: coffer(1), one page a subcommand (coffer.get(1), ...),
# coffer-dev-backend(1), and the credential helpers git-credential-coffer(1) and
# docker-credential-coffer(1). The login commands' pages come from coffer-auth, which runs them.
# View one with: man -l .build/man/coffer.1
#   scripts/man.sh --prebuilt   when the executables were just built (make test's build): only
#                               generate-manual is built, not the five executables again
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != --prebuilt ]; then
    for product in coffer coffer-auth coffer-dev-backend git-credential-coffer docker-credential-coffer CofferCommands; do
        swift build --product "$product" >/dev/null
    done
fi
swift build --product generate-manual >/dev/null
bin=$(swift build --show-bin-path)
date=$(git log -1 --format=%cs 2>/dev/null || date +%F)

out=.build/man
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rm -rf "$out"
mkdir -p "$out" "$work/auth" "$work/dev"

"$bin/generate-manual" "$bin/coffer" --multi-page --date "$date" -o "$out"
# coffer's pages for the forwarded commands only say that they take arguments: use the
# pages of the executable that parses them.
"$bin/generate-manual" "$bin/coffer-auth" --multi-page --date "$date" -o "$work/auth"
for page in "$work"/auth/coffer.*.1; do
    [ "$(basename "$page")" = coffer.help.1 ] || cp "$page" "$out/"
done
# coffer-dev-backend's root is named coffer, so that its page is coffer.dev-backend(1); the
# executable run alone gets the same page under its own name.
"$bin/generate-manual" "$bin/coffer-dev-backend" --multi-page --date "$date" -o "$work/dev"
cp "$work/dev/coffer.dev-backend.1" "$out/"
sed -e 's/^\.Dt COFFER\.DEV-BACKEND 1$/.Dt COFFER-DEV-BACKEND 1/' -e 's/^\.Nm "coffer dev-backend"$/.Nm coffer-dev-backend/' \
    "$work/dev/coffer.dev-backend.1" >"$out/coffer-dev-backend.1"
test -s "$out/coffer-dev-backend.1" || { echo "man: no page for coffer-dev-backend" >&2; exit 1; }

for helper in git-credential-coffer docker-credential-coffer; do
    "$bin/generate-manual" "$bin/$helper" --date "$date" -o "$out"
done

# A page whose description ends its discussion with the exit-status block (ExitStatus.helpBlock:
# "EXIT STATUS", then "  N    meaning" lines, continued deeper) gets it as a list in its EXIT STATUS
# section instead of the generic "exits 0 on success": coffer(1) lists the table, generated from
# the code like the help; coffer.request(1) the statuses its command gives.
for page in "$out"/*.1; do
    grep -qx 'EXIT STATUS' "$page" || continue
    awk '
        blank && $0 != "EXIT STATUS" { print ""; blank = 0 }
        state == 0 && $0 == "" { blank = 1; next }
        state == 0 && $0 == "EXIT STATUS" { state = 1; blank = 0; next }
        state == 1 && /^  [0-9]+ / { n++; number[n] = $1; sub(/^  [0-9]+ +/, ""); text[n] = $0; next }
        state == 1 && /^   +[^ ]/ && n > 0 { sub(/^ +/, ""); text[n] = text[n] " " $0; next }
        state == 1 { state = 2 }
        $0 == ".Ex -std" && n > 0 {
            print ".Bl -tag -width Ds -compact"
            for (i = 1; i <= n; i++) { print ".It " number[i]; print text[i] }
            print ".El"
            next
        }
        { print }
        END { if (blank) print "" }
    ' "$page" >"$work/page" && mv "$work/page" "$page"
done
help_statuses=$("$bin/coffer" --help | awk '$0 == "EXIT STATUS" { on = 1; next } on && /^  [0-9]/ { print $1; next } on && !/^   / { on = 0 }')
listed_statuses=$(sed -n 's/^\.It \([0-9]*\)$/\1/p' "$out/coffer.1")
[ -n "$help_statuses" ] && [ "$help_statuses" = "$listed_statuses" ] && ! grep -qx 'EXIT STATUS' "$out/coffer.1" \
    || { echo "man: coffer.1's EXIT STATUS list is not the one of coffer --help" >&2; exit 1; }

# mandoc checks every page for errors (make test installs it; its style warnings are about
# generate-manual's layout, not the content). The login pages must be coffer-auth's, with options.
mandoc -T lint -W error "$out"/*.1
grep -q 'Fl -issuer' "$out/coffer.login.1" || { echo "man: coffer.login.1 lacks the login options" >&2; exit 1; }
echo "man: $(ls "$out" | wc -l) pages in $out (view with: man -l $out/coffer.1)"
