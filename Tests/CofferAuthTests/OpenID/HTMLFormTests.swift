import CofferTestSupport
import XCTest

/// The HTML forms ``BrowserPlayer`` reads: DOT's (Django's) pages and a dev-backend-style page.
final class HTMLFormTests: XCTestCase {
    func testDjangoLoginForm() throws {
        let html = """
            <!DOCTYPE html><html><body><form method="post" action="/accounts/login/">
            <input type="hidden" name="csrfmiddlewaretoken" value="a&amp;b&#39;c&#x22;">
            <p><label for="id_username">Username:</label> <input type="text" name="username" autofocus autocapitalize="none" maxlength="150" required id="id_username"></p>
            <p><input type=password name=password required id="id_password"></p>
            <input type="hidden" name="next" value="/o/authorize/?response_type=code&amp;client_id=x">
            <input type="submit" value="Log in">
            </form></body></html>
            """
        let form = try XCTUnwrap(HTMLForm.all(in: html).first)
        XCTAssertEqual(form.method, "POST")
        XCTAssertEqual(form.action, "/accounts/login/")
        XCTAssertTrue(form.asksForPassword)
        XCTAssertEqual(form.value(of: "csrfmiddlewaretoken"), "a&b'c\"")
        XCTAssertEqual(form.value(of: "next"), "/o/authorize/?response_type=code&client_id=x")
        XCTAssertEqual(form.controls.map(\.type), ["hidden", "text", "password", "hidden", "submit"])
    }

    func testConsentAndDeviceButtons() throws {
        let html = """
            <form id="authorizationForm" method="post"><!-- <form action="/fake"> -->
            <input type="hidden" name="state" value="s"/>
            <input type="submit" class="btn" value="Cancel"/>
            <input type="submit" class="btn" name="allow" value="Authorize"/>
            </form>
            <form method="POST"><button type="submit" name="action" value="accept">Accept</button>
            <button name="action" value="deny">Deny <b>it</b></button></form>
            """
        let forms = HTMLForm.all(in: html)
        XCTAssertEqual(forms.count, 2)
        XCTAssertEqual(forms[0].id, "authorizationForm")
        XCTAssertNil(forms[0].action)
        XCTAssertEqual(forms[0].controls.filter(\.isSubmit).map { $0.name ?? "-" }, ["-", "allow"])
        XCTAssertEqual(forms[1].controls.map(\.label), ["Accept", "Deny it"])
        XCTAssertEqual(forms[1].controls.map(\.value), ["accept", "deny"])
    }

    func testPlainText() {
        XCTAssertEqual(HTMLForm.plainText("<h1> Device Authorized </h1>\n<p>a &lt; b</p>"), "Device Authorized a < b")
    }
}
