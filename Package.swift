// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Coffer",
    products: [
        .library(name: "Coffer", targets: ["Coffer"]),
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

        .target(name: "Coffer", dependencies: ["CSodium", "CSQLite"]),
        .executableTarget(
            name: "coffer",
            dependencies: ["Coffer", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(name: "coffer-bench", dependencies: ["Coffer", "CSodium", "CSQLite"]),

        // A small program the tests run as a second process (concurrent writers, kill -9).
        .executableTarget(name: "coffer-test-helper", dependencies: ["Coffer"], path: "Tests/coffer-test-helper"),
        .target(name: "CofferTestSupport", path: "Tests/CofferTestSupport"),
        .testTarget(
            name: "CofferTests", dependencies: ["Coffer", "CSodium", "CSQLite", "CofferTestSupport", "coffer-test-helper"],
            exclude: ["Fixtures"]),
        .testTarget(name: "cofferTests", dependencies: ["Coffer", "CofferTestSupport", "coffer"]),
    ]
)
