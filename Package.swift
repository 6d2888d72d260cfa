// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Coffer",
    products: [
        .library(name: "Coffer", targets: ["Coffer"]),
        // The store-behaviour suite, for running over any CredentialStore (links XCTest).
        .library(name: "CofferConformance", targets: ["CofferConformance"]),
        .executable(name: "coffer", targets: ["coffer"]),
        .executable(name: "coffer-bench", targets: ["coffer-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.6.0"),
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

        .target(name: "Coffer", dependencies: ["CSodium", "CSQLite", "CLibSecret"]),
        .target(name: "CofferConformance", dependencies: ["Coffer"]),
        .executableTarget(
            name: "coffer",
            dependencies: ["Coffer", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "coffer-bench", dependencies: ["Coffer", "CSodium", "CSQLite", "CLibSecret"]),

        // A small program the tests run as a second process (concurrent writers, kill -9).
        .executableTarget(name: "coffer-test-helper", dependencies: ["Coffer"], path: "Tests/coffer-test-helper"),
        // Helpers both test targets share: subprocesses, temporary folders, the Secret Service test environment.
        .target(name: "CofferTestSupport", dependencies: ["Coffer"], path: "Tests/CofferTestSupport"),
        .testTarget(
            name: "CofferTests",
            dependencies: ["Coffer", "CSodium", "CSQLite", "coffer-test-helper", "CofferConformance", "CofferTestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(name: "cofferTests", dependencies: ["coffer", "Coffer", "CofferTestSupport"]),
    ]
)
