import XCTest
@testable import CofferAgent
import Coffer

/// Which interpreters count, and what each one's command line says it runs.
final class InterpreterTests: XCTestCase {
    func script(_ executable: String, _ arguments: String...) throws -> Interpreter.Script {
        let interpreter = try XCTUnwrap(Interpreter(executableName: Array(executable.utf8)), executable)
        return interpreter.script(in: ArraySlice(arguments.map { Array($0.utf8) }))
    }

    func file(_ path: String) -> Interpreter.Script { .file(Array(path.utf8)) }
    func named(_ name: String) -> Interpreter.Script { .named(Array(name.utf8)) }

    /// The names of the design's list count, with version suffixes where it says `*`; others do not.
    func testInterpreterNames() {
        for name in ["python3.11", "python3", "python", "python2.7", "node", "nodejs", "perl", "perl5.36.0", "ruby", "ruby3.1", "sh", "bash", "dash", "zsh", "fish", "java"] {
            XCTAssertNotNil(Interpreter(executableName: Array(name.utf8)), name)
        }
        for name in ["git", "ssh", "nodex", "mysh", "javac", "bash-static", "secret-tool", ""] {
            XCTAssertNil(Interpreter(executableName: Array(name.utf8)), name)
        }
    }

    /// Python: a script after any flags; `-c` and `-` are the interpreter alone; `-m` names a module.
    func testPython() throws {
        XCTAssertEqual(try script("python3.11", "sync.py", "-c", "x"), file("sync.py"))
        XCTAssertEqual(try script("python3.11", "-u", "-B", "-W", "ignore", "-X", "utf8", "/a/b.py"), file("/a/b.py"))
        XCTAssertEqual(try script("python3.11", "-Wignore", "-Xdev", "b.py"), file("b.py"))
        XCTAssertEqual(try script("python3.11", "--check-hash-based-pycs", "always", "b.py"), file("b.py"))
        XCTAssertEqual(try script("python3.11", "-c", "import keyring"), .none)
        XCTAssertEqual(try script("python3.11", "-uc", "print(1)", "fake.py"), .none, "c in a cluster")
        XCTAssertEqual(try script("python3.11", "-", "fake.py"), .none, "standard input")
        XCTAssertEqual(try script("python3.11"), .none, "interactive")
        XCTAssertEqual(try script("python3.11", "-i"), .none)
        XCTAssertEqual(try script("python3.11", "-m", "keyring", "get", "s", "u"), named("module:keyring"))
        XCTAssertEqual(try script("python3.11", "-Em", "http.server"), named("module:http.server"), "m in a cluster, its value next")
        XCTAssertEqual(try script("python3.11", "-mjson.tool"), named("module:json.tool"))
        XCTAssertEqual(try script("python3.11", "-m"), .none)
        XCTAssertEqual(try script("python3.11", "--", "-odd-name.py"), file("-odd-name.py"))
    }

    /// Shells: `-c` and `-s` anywhere in the options are the shell alone; `-o` takes a value;
    /// `-` and `--` end the options.
    func testShells() throws {
        for shell in ["sh", "bash", "dash", "zsh"] {
            XCTAssertEqual(try script(shell, "deploy.sh", "-c", "x"), file("deploy.sh"), shell)
            XCTAssertEqual(try script(shell, "-c", "echo hi", "name", "deploy.sh"), .none, shell)
            XCTAssertEqual(try script(shell, "-ec", "echo hi"), .none, shell)
            XCTAssertEqual(try script(shell, "-s", "a"), .none, shell)
            XCTAssertEqual(try script(shell), .none, shell)
            XCTAssertEqual(try script(shell, "-e", "-x", "deploy.sh"), file("deploy.sh"), shell)
            XCTAssertEqual(try script(shell, "-o", "pipefail", "+o", "posix", "deploy.sh"), file("deploy.sh"), shell)
            XCTAssertEqual(try script(shell, "--", "deploy.sh"), file("deploy.sh"), shell)
            XCTAssertEqual(try script(shell, "-", "deploy.sh"), file("deploy.sh"), shell)
        }
        XCTAssertEqual(try script("bash", "--norc", "--rcfile", "rc", "-O", "extglob", "run.sh"), file("run.sh"))
        XCTAssertEqual(try script("bash", "-lc", "cmd"), .none)
        XCTAssertEqual(try script("fish", "-c", "echo"), .none)
        XCTAssertEqual(try script("fish", "--command=echo"), .none)
        XCTAssertEqual(try script("fish", "-C", "set x 1", "--debug", "all", "run.fish"), file("run.fish"))
        XCTAssertEqual(try script("fish", "-Cset", "-n", "run.fish"), file("run.fish"))
    }

    /// Node.js: code options are the interpreter alone; `-r` takes a module.
    func testNode() throws {
        XCTAssertEqual(try script("node", "server.js"), file("server.js"))
        XCTAssertEqual(try script("node", "-r", "dotenv/config", "--inspect=9229", "--max-old-space-size=100", "server.js"), file("server.js"))
        XCTAssertEqual(try script("node", "-e", "1"), .none)
        XCTAssertEqual(try script("node", "--eval=1", "x.js"), .none)
        XCTAssertEqual(try script("node", "-p", "1"), .none)
        XCTAssertEqual(try script("nodejs"), .none)
        XCTAssertEqual(try script("node", "-"), .none)
    }

    /// Perl: `-e` anywhere in a cluster is code; `-I` takes a value; `-l` takes octal digits and
    /// `-0` octal or `xHEX` ones, and the cluster goes on; `-i` takes the rest of its cluster (so `-pie` is `-i` with the
    /// extension `e`, as perl reads it).
    func testPerl() throws {
        XCTAssertEqual(try script("perl", "report.pl"), file("report.pl"))
        XCTAssertEqual(try script("perl", "-w", "-I", "lib", "-Ilib2", "-MData::Dumper", "report.pl"), file("report.pl"))
        XCTAssertEqual(try script("perl", "-e", "print 1"), .none)
        XCTAssertEqual(try script("perl", "-lne", "print", "file"), .none)
        XCTAssertEqual(try script("perl", "-0777ne", "print", "file"), .none)
        XCTAssertEqual(try script("perl", "-le", "print 1"), .none, "e is no octal digit of -l")
        XCTAssertEqual(try script("perl", "-0x1F", "-w", "run.pl"), file("run.pl"))
        XCTAssertEqual(try script("perl", "-pi", "-e", "s/a/b/", "f"), .none)
        XCTAssertEqual(try script("perl", "-pie", "s/a/b/", "f"), file("s/a/b/"))
        XCTAssertEqual(try script("perl"), .none)
    }

    /// Ruby: `-e` is code; `-I`, `-r` take a value.
    func testRuby() throws {
        XCTAssertEqual(try script("ruby", "-w", "-I", "lib", "-rjson", "app.rb"), file("app.rb"))
        XCTAssertEqual(try script("ruby3.1", "-ne", "puts"), .none)
        XCTAssertEqual(try script("ruby", "--encoding", "UTF-8", "app.rb"), file("app.rb"))
    }

    /// Java: `-jar` names a file, `-m` a module, a `.java` file a source program, any other
    /// first argument a class; class-path values are skipped.
    func testJava() throws {
        XCTAssertEqual(try script("java", "-Xmx1g", "-jar", "app.jar", "x"), file("app.jar"))
        XCTAssertEqual(try script("java", "-cp", "lib/*", "-Dk=v", "org.example.Main"), named("class:org.example.Main"))
        XCTAssertEqual(try script("java", "--module-path", "mods", "-m", "org.example/org.example.Main"), named("module:org.example/org.example.Main"))
        XCTAssertEqual(try script("java", "--module=m/c"), named("module:m/c"))
        XCTAssertEqual(try script("java", "Hello.java"), file("Hello.java"))
        XCTAssertEqual(try script("java", "@options", "-version"), .none)
    }

    /// A script's name is its bytes, even when they are not UTF-8.
    func testScriptNamesKeepTheirBytes() throws {
        let interpreter = try XCTUnwrap(Interpreter(executableName: Array("python3".utf8)))
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".py".utf8)
        XCTAssertEqual(interpreter.script(in: [Array("-u".utf8), name]), .file(name))
    }
}
