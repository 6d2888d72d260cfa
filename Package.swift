// swift-tools-version: 6.1
import Foundation
import PackageDescription

// Traits decide which other packages a consumer resolves (SwiftPM skips the dependencies that
// only disabled traits use):
//   traits: []        the store alone (Coffer, CofferConformance): no other package;
//   traits: ["Auth"]  also CofferAuth: SwiftNIO, AsyncHTTPClient, swift-crypto, jwt-kit, swift-log;
//   default ("Tools") also the executables, the dev backend, the benchmarks and the tests.
let auth: TargetDependencyCondition? = .when(traits: ["Auth"])
let tools: TargetDependencyCondition? = .when(traits: ["Tools"])

// Dependencies point one way: coffer-auth and coffer-dev-backend → CofferAuth → Coffer → Vendor;
// CofferDevBackend → Coffer, never CofferAuth;
// coffer, git-credential-coffer, docker-credential-coffer → CofferCommandLine, CofferAgent → Coffer
// (no SwiftNIO, Hummingbird or HTTP client); coffer-agent, the agent's daemon, also →
// CofferSecretServiceProvider and CofferTokenBroker → CofferAuth (docs/agent.md, "The token broker":
// the agent refreshes the logins it holds).
// The store (Coffer) links only libsodium, SQLite and libsecret: no SwiftNIO.
let package = Package(
    name: "Coffer",
    products: [
        .library(name: "Coffer", targets: ["Coffer"]),
        // The store-behaviour suite, for running over any CredentialStore (links XCTest).
        .library(name: "CofferConformance", targets: ["CofferConformance"]),
        .library(name: "CofferAuth", targets: ["CofferAuth"]),
        .library(name: "CofferDevBackend", targets: ["CofferDevBackend"]),
        .executable(name: "coffer", targets: ["CofferFront"]),
        // The agent (`coffer agent start` runs it): the vaults it holds, the Secret Service, the token broker.
        .executable(name: "coffer-agent", targets: ["coffer-agent"]),
        .executable(name: "coffer-auth", targets: ["coffer-auth"]),
        .executable(name: "coffer-dev-backend", targets: ["coffer-dev-backend"]),
        .executable(name: "coffer-bench", targets: ["coffer-bench"]),
        // git's and docker's credential helpers on the vault.
        .executable(name: "git-credential-coffer", targets: ["git-credential-coffer"]),
        .executable(name: "docker-credential-coffer", targets: ["docker-credential-coffer"]),
        // The full programs behind the thin `coffer`, git-credential-coffer and
        // docker-credential-coffer, loaded only for what those do not answer themselves
        // (docs/performance.md, "The thin front programs"). Not for linking.
        .library(name: "CofferCommands", type: .dynamic, targets: ["CofferCLI", "GitCredentialHelper", "DockerCredentialHelper"]),
    ],
    traits: [
        .trait(name: "Auth", description: "CofferAuth: logins to OpenID providers, Oracle Mobile Hub, MobileFirst and Mobile Client Access."),
        .trait(
            name: "Tools", description: "The coffer executables, the development backend, the benchmarks and the test suites.",
            enabledTraits: ["Auth"]),
        .default(enabledTraits: ["Tools"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // The dev backend's HTTP Basic and Bearer header parsers.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // ID-token signatures (RS256, ES256) against the provider's JWKS: never checked by hand.
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        // SHA-256 for PKCE (RFC 7636 S256); jwt-kit builds on it already. Its CryptoExtras: the RSA
        // client keys of MobileFirst and Mobile Client Access (RS256 signatures).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // X.509: the certificate Mobile Client Access issues for a client key (jwt-kit builds on it already).
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium", path: "Vendor/CSodium",
            pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Vendor/CSQLite",
            pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLibSecret", path: "Vendor/CLibSecret",
            pkgConfig: "libsecret-1", providers: [.apt(["libsecret-1-dev"])]),
        // libFuzzer's driver entry point, which fuzz builds link from the toolchain; header-only.
        .systemLibrary(name: "CFuzzer", path: "Vendor/CFuzzer"),
        // glibc calls Swift cannot make (variadic prctl and syscall: pidfds, async-signal-safe terminal
        // restore); header-only.
        .systemLibrary(name: "CLinux", path: "Vendor/CLinux"),
        // GDBus (gio), which libsecret is built on: the Secret Service provider's D-Bus side.
        .systemLibrary(
            name: "CGio", path: "Vendor/CGio",
            pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // libgcrypt, which libsecret depends on: the provider's Diffie-Hellman and AES-CBC.
        .systemLibrary(
            name: "CGcrypt", path: "Vendor/CGcrypt",
            pkgConfig: "libgcrypt", providers: [.apt(["libgcrypt20-dev"])]),

        // What every Coffer target builds on, the client and the dev backend alike: a mutex that
        // ThreadSanitizer sees (Guarded), duration conversions, zeroing secret memory. No other dependency.
        .target(name: "CofferBase"),
        // The one way Coffer runs a child process (systemd-creds, the prompter, the detached
        // agent, the browser, the tests' children): absolute path, listed environment, named
        // descriptors only, a process group of its own, bounded output, typed endings.
        .target(name: "CofferProcess", dependencies: ["CofferBase", "CLinux"]),
        // The agent protocol's frames, socket and path checks without Foundation: what the thin
        // front programs (coffer, the credential helpers) need to ask the agent.
        .target(name: "CofferAgentWire", dependencies: ["CofferBase"]),
        .target(name: "Coffer", dependencies: ["CofferBase", "CofferAgentWire", "CofferProcess", "CSodium", "CSQLite", "CLibSecret", "CLinux"]),
        .target(name: "CofferConformance", dependencies: ["Coffer"]),
        // The agent that keeps vaults unlocked between CLI commands: its server and the vaults it holds.
        // Identity/ tells which program each caller is (pidfds through CLinux); Prompts/ is the
        // prompter protocol (the `--prompter` command) and the pinentry prompter's Assuan client.
        .target(name: "CofferAgent", dependencies: ["Coffer", "CofferAgentWire", "CofferBase", "CofferProcess", "CLinux"]),
        // The agent's token broker: the OpenID logins it holds, refreshed in the agent's process
        // (CofferAgent's TokenBroker on CofferAuth's OpenIDClient). Only the agent's daemon needs it.
        .target(name: "CofferTokenBroker", dependencies: ["Coffer", "CofferAgent", "CofferAuth", "CofferBase"]),
        // The Secret Service (org.freedesktop.secrets) on the vaults the agent holds.
        .target(name: "CofferSecretServiceProvider", dependencies: ["Coffer", "CofferBase", "CofferProcess", "CofferAgent", "CGio", "CGcrypt", "CSodium"]),
        .target(
            name: "CofferAuth",
            dependencies: [
                "Coffer", "CofferBase", "CofferProcess",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: auth),
                .product(name: "Crypto", package: "swift-crypto", condition: auth),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: auth),
                .product(name: "JWTKit", package: "jwt-kit", condition: auth),
                .product(name: "Logging", package: "swift-log", condition: auth),
                .product(name: "NIOCore", package: "swift-nio", condition: auth),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: auth),
                .product(name: "NIOPosix", package: "swift-nio", condition: auth),
                .product(name: "X509", package: "swift-certificates", condition: auth),
            ]),
        .target(
            name: "CofferDevBackend",
            dependencies: [
                // Not CofferAuth, directly or through another target: the backend shares no code with
                // the client it serves (PackageGraphTests); nor the store.
                "CofferBase",
                .product(name: "Crypto", package: "swift-crypto", condition: tools),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: tools),
                .product(name: "Hummingbird", package: "hummingbird", condition: tools),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth", condition: tools),
                .product(name: "JWTKit", package: "jwt-kit", condition: tools),
                .product(name: "Logging", package: "swift-log", condition: tools),
                .product(name: "NIOCore", package: "swift-nio", condition: tools),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: tools),
                .product(name: "X509", package: "swift-certificates", condition: tools),
            ]),
        // pam_coffer.so's C sources, the PAM module that unlocks the login vault at login
        // (docs/login-unlock.md). SwiftPM compiles them (warnings count); scripts/pam-module.sh
        // links the module with the C compiler alone (`make pam`), since a SwiftPM dynamic library
        // would load the Swift runtime into sshd and login. No product: nothing in Swift links it.
        .target(name: "CPAMCoffer", linkerSettings: [.linkedLibrary("pam")]),
        // What the executables share: vault options, unlocking, descriptors, streams, exit statuses.
        .target(
            name: "CofferCommandLine",
            dependencies: ["Coffer", "CofferAgent", "CofferAgentWire", "CofferBase", "CofferThinClient", "CLinux", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools)]),
        // What the thin front programs share: the agent over CofferAgentWire, their strict command
        // lines, and loading the full program (FullProgram). No Foundation.
        .target(name: "CofferThinClient", dependencies: ["CofferAgentWire", "CofferBase", "CLinux"]),
        // The thin `coffer` (product `coffer`): it answers get, set, list, delete and token through the agent
        // itself and loads CofferCLI (in libCofferCommands.so) for everything else. Its folder is
        // not `coffer`, since a folder or module named `coffer` beside `Coffer` is one folder on
        // macOS's and Windows's file systems.
        .executableTarget(name: "CofferFront", dependencies: ["CofferAgentWire", "CofferThinClient"]),
        // The `coffer` command in full. It links no networking: its login and dev-backend commands
        // run the two executables below, and `coffer agent start` runs coffer-agent.
        .target(
            name: "CofferCLI",
            dependencies: [
                "Coffer", "CofferAgent", "CofferAgentWire", "CofferBase", "CofferCommandLine", "CofferProcess",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
            ]),
        // The agent's daemon: `coffer agent start` runs it, so that only it links the Secret
        // Service's GDBus and the token broker's HTTP client. It answers the credential helpers'
        // `get` by their own rules (helperGet).
        .executableTarget(
            name: "coffer-agent",
            dependencies: [
                "Coffer", "CofferAgent", "CofferAgentWire", "CofferCommandLine", "CofferSecretServiceProvider", "CofferTokenBroker",
                "GitCredentialHelper", "DockerCredentialHelper",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
            ]),
        .executableTarget(
            name: "coffer-auth",
            dependencies: [
                "Coffer", "CofferAuth", "CofferBase", "CofferCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: tools),
                .product(name: "Logging", package: "swift-log", condition: tools),
            ]),
        .executableTarget(
            name: "coffer-dev-backend",
            dependencies: [
                "CofferAuth", "CofferDevBackend", "CofferCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
                .product(name: "Logging", package: "swift-log", condition: tools),
            ]),
        // git's and docker's credential helpers in full: the vault through CofferCommandLine (agent or
        // unlock), no networking; and their thin executables, which answer `get` through the agent.
        .target(
            name: "GitCredentialHelper",
            dependencies: ["Coffer", "CofferAgentWire", "CofferBase", "CofferCommandLine", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools)]),
        .target(
            name: "DockerCredentialHelper",
            dependencies: ["Coffer", "CofferBase", "CofferCommandLine", .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools)]),
        .executableTarget(name: "git-credential-coffer", dependencies: ["CofferAgentWire", "CofferThinClient"]),
        .executableTarget(name: "docker-credential-coffer", dependencies: ["CofferAgentWire", "CofferThinClient"]),
        .executableTarget(
            name: "coffer-bench",
            dependencies: [
                "Coffer", "CofferAgent", "CofferAgentWire", "CofferBase", "CSodium", "CSQLite", "CLibSecret", "CofferAuth", "CofferDevBackend",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: tools),
                .product(name: "JWTKit", package: "jwt-kit", condition: tools),
                .product(name: "Logging", package: "swift-log", condition: tools),
            ]),
        // The parsers' fuzz targets: libFuzzer under scripts/fuzz.sh, a corpus replayer otherwise.
        .executableTarget(
            name: "coffer-fuzz",
            dependencies: [
                "Coffer", "CofferAgent", "CofferAgentWire", "CofferAuth", "CofferBase", "CofferDevBackend", "CofferSecretServiceProvider", "DockerCredentialHelper",
                "GitCredentialHelper", "CLinux", "CFuzzer",
            ]),

        // A small program the tests run as a second process (concurrent writers, kill -9, peers of
        // the agent, a resolver running as another user).
        .executableTarget(name: "coffer-test-helper", dependencies: ["Coffer", "CofferAgent", "CofferAgentWire"], path: "Tests/coffer-test-helper"),
        // What every test target shares: child processes, temporary folders, a test clock,
        // a quiet logger, the Secret Service test environment.
        .target(
            name: "CofferTestSupport",
            dependencies: [
                "Coffer", "CofferBase", "CofferProcess", .product(name: "Logging", package: "swift-log", condition: tools),
                .product(name: "Crypto", package: "swift-crypto", condition: tools),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: tools),
            ],
            path: "Tests/CofferTestSupport"),
        .testTarget(
            name: "CofferTests",
            dependencies: [
                "Coffer", "CofferAgentWire", "CSodium", "CSQLite", "coffer-test-helper", "CofferConformance", "CofferTestSupport",
                // The login keychain's tests run the built agent.
                .target(name: "CofferCLI", condition: tools), .target(name: "CofferFront", condition: tools), .target(name: "coffer-agent", condition: tools),
            ],
            exclude: ["Fixtures"]),
        .testTarget(name: "CofferBaseTests", dependencies: ["CofferBase"]),
        .testTarget(name: "CofferThinClientTests", dependencies: ["CofferThinClient", "CofferAgentWire"]),
        .testTarget(name: "CofferProcessTests", dependencies: ["CofferProcess", "CofferBase", "CofferTestSupport"]),
        // The identity tests run coffer-test-helper as a peer.
        .testTarget(name: "CofferAgentTests", dependencies: ["CofferAgent", "CofferAgentWire", "Coffer", "CofferBase", "CofferProcess", "CofferTestSupport", "coffer-test-helper"], exclude: ["Fixtures"]),
        .testTarget(
            name: "CofferSecretServiceProviderTests",
            dependencies: ["CofferSecretServiceProvider", "CofferAgent", "CofferAgentWire", "Coffer", "CofferBase", "CofferTestSupport", "CGio"], exclude: ["Fixtures"]),
        .testTarget(
            name: "CofferAuthTests",
            dependencies: [
                "CofferAuth", "CofferBase", "CofferDevBackend", "CofferTestSupport",
                // The token broker's tests run the built agent.
                .target(name: "CofferCLI", condition: tools), .target(name: "CofferFront", condition: tools), .target(name: "coffer-agent", condition: tools),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: tools),
                .product(name: "Crypto", package: "swift-crypto", condition: tools),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: tools),
                .product(name: "Hummingbird", package: "hummingbird", condition: tools),
                .product(name: "JWTKit", package: "jwt-kit", condition: tools),
                .product(name: "Logging", package: "swift-log", condition: tools),
                .product(name: "NIOCore", package: "swift-nio", condition: tools),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: tools),
                .product(name: "X509", package: "swift-certificates", condition: tools),
            ],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "CofferDevBackendTests",
            dependencies: [
                "CofferDevBackend", "CofferTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: tools),
                .product(name: "Crypto", package: "swift-crypto", condition: tools),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: tools),
                .product(name: "JWTKit", package: "jwt-kit", condition: tools),
                .product(name: "Logging", package: "swift-log", condition: tools),
                .product(name: "NIOCore", package: "swift-nio", condition: tools),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: tools),
                .product(name: "X509", package: "swift-certificates", condition: tools),
            ]),
        // The package itself: its target graph (`swift package dump-package`).
        .testTarget(name: "PackageTests", dependencies: ["CofferTestSupport"]),
        .testTarget(
            name: "CofferCLITests",
            dependencies: [
                "CofferCLI", "CofferFront", "coffer-agent", "coffer-auth", "coffer-dev-backend", "git-credential-coffer", "docker-credential-coffer",
                "GitCredentialHelper", "DockerCredentialHelper", "Coffer", "CofferAgent", "CofferAgentWire", "CofferThinClient",
                "CofferCommandLine", "CofferDevBackend", "CofferTestSupport",
            ],
            exclude: ["Fixtures"]),
    ]
)

// `make docs` (scripts/docs.sh) sets COFFER_DOCS=1 to add the DocC plugin, which no consumer needs.
if ProcessInfo.processInfo.environment["COFFER_DOCS"] == "1" {
    package.dependencies.append(Package.Dependency.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
