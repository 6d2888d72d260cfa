// swift-tools-version: 6.0
import PackageDescription

// Dependencies point one way: coffer-auth and coffer-dev-backend → CofferAuth → Coffer → Vendor;
// coffer → CofferCommandLine, CofferAgent → Coffer (no SwiftNIO, Hummingbird or HTTP client).
// The store (Coffer) links only libsodium, SQLite and libsecret: no SwiftNIO.
let package = Package(
    name: "Coffer",
    products: [
        .library(name: "Coffer", targets: ["Coffer"]),
        // The store-behaviour suite, for running over any CredentialStore (links XCTest).
        .library(name: "CofferConformance", targets: ["CofferConformance"]),
        .library(name: "CofferAuth", targets: ["CofferAuth"]),
        .library(name: "CofferDevBackend", targets: ["CofferDevBackend"]),
        .executable(name: "coffer", targets: ["coffer"]),
        .executable(name: "coffer-auth", targets: ["coffer-auth"]),
        .executable(name: "coffer-dev-backend", targets: ["coffer-dev-backend"]),
        .executable(name: "coffer-bench", targets: ["coffer-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
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
        // `make docs`: the DocC catalogs of every library.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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
        // glibc calls Swift cannot make (variadic prctl, async-signal-safe terminal restore); header-only.
        .systemLibrary(name: "CLinux", path: "Vendor/CLinux"),
        // GDBus (gio), which libsecret is built on: the Secret Service provider's D-Bus side.
        .systemLibrary(
            name: "CGio", path: "Vendor/CGio",
            pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // libgcrypt, which libsecret depends on: the provider's Diffie-Hellman and AES-CBC.
        .systemLibrary(
            name: "CGcrypt", path: "Vendor/CGcrypt",
            pkgConfig: "libgcrypt", providers: [.apt(["libgcrypt20-dev"])]),

        .target(name: "Coffer", dependencies: ["CSodium", "CSQLite", "CLibSecret"]),
        .target(name: "CofferConformance", dependencies: ["Coffer"]),
        // The agent that keeps vaults unlocked between CLI commands: its protocol, server and client.
        .target(name: "CofferAgent", dependencies: ["Coffer"]),
        // The Secret Service (org.freedesktop.secrets) on the vaults the agent holds.
        .target(name: "CofferSecretServiceProvider", dependencies: ["Coffer", "CofferAgent", "CGio", "CGcrypt", "CSodium"]),
        .target(
            name: "CofferAuth",
            dependencies: [
                "Coffer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
            ]),
        .target(
            name: "CofferDevBackend",
            dependencies: [
                "CofferAuth",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
            ]),
        // What the three executables share: vault options, unlocking, descriptors, streams, exit statuses.
        .target(
            name: "CofferCommandLine",
            dependencies: ["Coffer", "CofferAgent", "CLinux", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // `coffer` links no networking: its login and dev-backend commands run the two executables below.
        .executableTarget(
            name: "coffer",
            dependencies: [
                "Coffer", "CofferAgent", "CofferCommandLine", "CofferSecretServiceProvider",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "coffer-auth",
            dependencies: [
                "Coffer", "CofferAuth", "CofferCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "coffer-dev-backend",
            dependencies: [
                "CofferAuth", "CofferDevBackend", "CofferCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "coffer-bench",
            dependencies: [
                "Coffer", "CSodium", "CSQLite", "CLibSecret", "CofferAuth", "CofferDevBackend",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // The parsers' fuzz targets: libFuzzer under scripts/fuzz.sh, a corpus replayer otherwise.
        .executableTarget(
            name: "coffer-fuzz", dependencies: ["Coffer", "CofferAgent", "CofferAuth", "CofferDevBackend", "CofferSecretServiceProvider", "CFuzzer"]),

        // A small program the tests run as a second process (concurrent writers, kill -9).
        .executableTarget(name: "coffer-test-helper", dependencies: ["Coffer"], path: "Tests/coffer-test-helper"),
        // What every test target shares: child processes, temporary folders, a test clock,
        // a quiet logger, the Secret Service test environment.
        .target(
            name: "CofferTestSupport",
            dependencies: [
                "Coffer", .product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/CofferTestSupport"),
        .testTarget(
            name: "CofferTests",
            dependencies: ["Coffer", "CSodium", "CSQLite", "coffer-test-helper", "CofferConformance", "CofferTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(name: "CofferAgentTests", dependencies: ["CofferAgent", "Coffer", "CofferTestSupport"]),
        .testTarget(
            name: "CofferSecretServiceProviderTests",
            dependencies: ["CofferSecretServiceProvider", "CofferAgent", "Coffer", "CofferTestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "CofferAuthTests",
            dependencies: [
                "CofferAuth", "CofferDevBackend", "CofferTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "CofferDevBackendTests",
            dependencies: [
                "CofferDevBackend", "CofferTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
            ]),
        .testTarget(
            name: "cofferTests", dependencies: ["coffer", "coffer-auth", "coffer-dev-backend", "Coffer", "CofferAgent", "CofferDevBackend", "CofferTestSupport"],
            exclude: ["Fixtures"]),
    ]
)
