import ArgumentParser
import CofferAuth

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Log out: remove the session from the vault, then revoke the token.",
        discussion: "Everything local is removed even when the backend is unreachable; a step that failed is named, with exit status 6.")

    @ParentCommand var root: CofferCommand

    func run() async throws {
        let profile = AuthProfile(store: try root.store())
        guard let backend = try profile.backend() else {
            print("not logged in")
            return
        }
        let auth = profile.authorization(for: backend)
        let outcome: Result<LogoutReport, AuthError>
        do throws(AuthError) { outcome = .success(try await auth.logout()) } catch { outcome = .failure(error) }
        try profile.removeBackend()
        let report = try outcome.get()
        print("logged out" + (report.revoked ? "; token revoked" : ""))
    }
}
