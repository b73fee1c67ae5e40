import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// A desktop notification as a user without a terminal gets it (`hark watch` under systemd):
/// the real `notify-send` (libnotify-bin) on a private session bus (`dbus-daemon`), received
/// by a notification server (Tests/Fixtures/dbus/notifications.py) that prints what it got.
/// The parts: notify-send and dbus-daemon from Debian, the server's Python with dbus-next.
enum DesktopParts {
    static let notifySend = "/usr/bin/notify-send"
    static let dbusDaemon = "/usr/bin/dbus-daemon"
    static let server = VoiceTestAssets.root + "/Tests/Fixtures/dbus/notifications.py"

    static var areInstalled: Bool {
        guard [notifySend, dbusDaemon, TestA2AAgent.python].allSatisfy({ FileManager.default.isExecutableFile(atPath: $0) })
        else { return false }
        // The venv's lib/pythonX.Y/site-packages holds dbus-next when setup installed it.
        let lib = VoiceTestAssets.root + "/.local/venv/lib"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []
        return versions.contains { FileManager.default.fileExists(atPath: "\(lib)/\($0)/site-packages/dbus_next") }
    }
}

@Suite(.enabled(if: DesktopParts.areInstalled, "needs notify-send, dbus-daemon and dbus-next; scripts/setup.sh --test"),
       .timeLimit(.minutes(5)))
struct DesktopNotificationTests {
    @Test func aBuildEndRecordedWithoutATerminalGoesToTheDesktopOnce() async throws {
        let bus = try ChildProcess([DesktopParts.dbusDaemon, "--session", "--nofork", "--print-address=1"],
                                   environment: ProcessInfo.processInfo.environment)
        defer { bus.signal(SIGTERM) }
        try await bus.waitFor(stdout: "\n")
        let address = bus.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        let notifications = try ChildProcess([TestA2AAgent.python, DesktopParts.server], environment: environment, lifeline: true)
        defer { notifications.signal(SIGTERM) }
        try await notifications.waitFor(stdout: "ready\n")

        let jenkins = try TestJenkinsServer()
        jenkins.addJob("app")
        let number = jenkins.startElsewhere("app")
        jenkins.append("app", number, "+ make app\n")
        let home = TestHome(config: "[hark]\ndefault = ci\n\n[session ci]\nkind = jenkins\nurl = \(jenkins.url)\n"
            + "auth = basic:ann:\(TestJenkinsServer.token)\n")
        let store = try HistoryStore(path: home.paths.historyDatabase)
        try store.ensureSession("ci", kind: "jenkins")
        let thread = try store.createThread(session: "ci", title: "build app")
        try store.follow(ResumePoint(kind: "build", key: "app#\(number)", details: ["job": "app", "number": String(number)]),
                         session: "ci", threadID: thread.id)
        jenkins.finish("app", number, "FAILURE", duration: 2_000)

        var watchEnvironment = home.environment
        watchEnvironment["DBUS_SESSION_BUS_ADDRESS"] = address
        let watched = try await HarkRun.run(["watch", "--once"], watchEnvironment)
        #expect(watched.status == 0, "\(watched.output)")
        #expect(watched.stdout == "recorded: ci · app #\(number) FAILURE in 2.0s\n")
        // notify-send ran before hark exited: the server has it, as one line of JSON.
        try await notifications.waitFor(stdout: "}\n")
        let received = try notifications.stdout.split(separator: "\n").dropFirst().map { try JSON.parse(String($0)) }
        #expect(received.count == 1, "\(notifications.stdout)")
        #expect(received.first?["app_name"]?.string == "hark")
        #expect(received.first?["summary"]?.string == "hark: ci")
        #expect(received.first?["body"]?.string == "build ended: app #\(number) FAILURE in 2.0s")

        let again = try await HarkRun.run(["watch", "--once"], watchEnvironment)
        #expect(again.stdout.isEmpty, "nothing new: \(again.output)")
        #expect(notifications.stdout.split(separator: "\n").count == 2, "no second notification: \(notifications.stdout)")
    }
}
