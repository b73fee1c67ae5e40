import Testing
@testable import HarkCore

/// The path operations that stand in for NSString's, case by case as NSString answered them.
@Suite struct PathNameTests {
    @Test func lastComponentAndParent() {
        let cases: [(path: String, last: String, parent: String)] = [
            ("/a/b", "b", "/a"), ("/a/b/", "b", "/a"), ("/a", "a", "/"), ("/", "/", "/"),
            ("a", "a", ""), ("a/b", "b", "a"), ("a//b", "b", "a"), ("", "", ""),
        ]
        for (path, last, parent) in cases {
            #expect(path.lastPathComponent == last, "last component of \(path)")
            #expect(path.deletingLastPathComponent == parent, "parent of \(path)")
        }
    }

    @Test func extensions() {
        #expect("dir/report.tar.gz".pathExtension == "gz")
        #expect("dir/report.tar.gz".deletingPathExtension == "dir/report.tar")
        #expect(".bashrc".pathExtension == "")
        #expect("a.d/b".pathExtension == "")
        #expect("form.md".lastPathComponent.deletingPathExtension == "form")
    }

    @Test func tildeAndStandardizing() {
        let home = Paths.homeDirectory()
        #expect("~".expandingTildeInPath == home)
        #expect("~/notes.md".expandingTildeInPath == home + "/notes.md")
        #expect("~root/x".expandingTildeInPath == "/root/x")
        #expect("~no-such-user-hark/x".expandingTildeInPath == "~no-such-user-hark/x")
        #expect("/a/./b//c/../d/".standardizingPath == "/a/b/d")
        #expect("relative/x".expandingTildeInPath == "relative/x")
    }
}
