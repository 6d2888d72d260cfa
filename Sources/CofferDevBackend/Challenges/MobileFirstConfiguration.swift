import Foundation

/// The development backend's MobileFirst 8 runtime: its security checks and tokens
/// (docs/protocol.md section 8).
public struct MobileFirstConfiguration: Sendable, Hashable {
    /// The runtime's name: its endpoints are under `/{runtime}/api/` and its resources under
    /// `/{runtime}/`. Default: `mfp`.
    public var runtime: String
    /// `UserLogin`: the user name must equal the password, and neither may be empty.
    /// Default: 3 attempts, blocked 10 s, a success lasts 60 s, remember-me 120 s.
    public var userLogin: SecurityCheckPolicy
    /// `PinCodeAttempts`. Default: 3 attempts, blocked 60 s, a success lasts 60 s.
    public var pinCodeAttempts: SecurityCheckPolicy
    /// The PIN `PinCodeAttempts` accepts. Default: 1234.
    public var pinCode: String
    /// The longest an access token lasts; it never outlives the checks of its scope. Default: 1 hour.
    public var tokenLifetime: TimeInterval
    /// How long an authorization code can be exchanged. Default: 60 s.
    public var codeLifetime: TimeInterval

    /// The default runtime name.
    public static let defaultRuntime = "mfp"
    /// The user-login security check: the user name must equal the password.
    public static let userLoginCheck = "UserLogin"
    /// The PIN security check.
    public static let pinCodeCheck = "PinCodeAttempts"
    /// MobileFirst's predefined scope element that every registered client satisfies, with no challenge.
    public static let registeredClientScope = "RegisteredClient"
    /// The protected resources below `/{runtime}/`, and the scope each one needs besides
    /// `RegisteredClient` (which every one needs).
    public static let resources: [(name: String, scope: String)] = [
        ("protected", userLoginCheck), ("balance", pinCodeCheck), ("transfer", "\(userLoginCheck) \(pinCodeCheck)"),
        ("registered", registeredClientScope),
    ]

    /// The runtime with the given values; every one has a default.
    public init(
        runtime: String = MobileFirstConfiguration.defaultRuntime,
        userLogin: SecurityCheckPolicy = SecurityCheckPolicy(blockedFor: 10, successLasts: 60, rememberMeLasts: 120),
        pinCodeAttempts: SecurityCheckPolicy = SecurityCheckPolicy(blockedFor: 60, successLasts: 60),
        pinCode: String = "1234", tokenLifetime: TimeInterval = 3600, codeLifetime: TimeInterval = 60
    ) {
        self.runtime = runtime
        self.userLogin = userLogin
        self.pinCodeAttempts = pinCodeAttempts
        self.pinCode = pinCode
        self.tokenLifetime = tokenLifetime
        self.codeLifetime = codeLifetime
    }
}
