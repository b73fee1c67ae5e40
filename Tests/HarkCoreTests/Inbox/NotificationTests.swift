import Foundation
import Testing
import TestSupport
@testable import HarkCore

/// Notifications as bytes: the text cleaned of what a server could use to reach the
/// terminal, the OSC sequences and their tmux and screen wrappers, which channel each setting
/// picks, quiet hours, and when one is due at all.
@Suite struct NotificationTests {
    @Test func serverTextLosesEveryControlCharacter() {
        let hostile = "done\u{1B}]52;c;cm0gLXJmIH4=\u{7}\u{1B}[2J\u{9B}31m\u{202E}gnp.exe\r\nnext; line"
        let clean = NotificationText.clean(hostile)
        #expect(!clean.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(!clean.contains("\u{202E}"))
        #expect(!clean.contains(";"), "a ; would start another OSC 777 field")
        // The sequences show as the marks the terminal sanitizer draws, never acting.
        #expect(clean == "done␛]52,c,cm0gLXJmIH4=␇␛[2J␛[31mgnp.exe next, line")
        #expect(NotificationText.clean(String(repeating: "a", count: 50), limit: 10) == "aaaaaaaaaa…")
        // What hark says at exit about a task left running names it by the agent's task id.
        #expect(ResumePoint(kind: "task", key: "\u{1B}[2J1234567").label == "task ␛[2J1234")
        #expect(ResumePoint(kind: "build", key: "app#3", details: ["label": "app #3\u{7}"]).label == "app #3␇")
    }

    @Test func theSequencesAndTheirPassthroughWrappers() {
        let plain = TerminalNotification.sequence(title: "hark: ci", body: "build ended: app #2 SUCCESS", flavour: .osc777,
                                                  multiplexer: .none)
        #expect(plain == "\u{1B}]777;notify;hark: ci;build ended: app #2 SUCCESS\u{7}")
        #expect(TerminalNotification.sequence(title: "hark: ci", body: "x", flavour: .osc9, multiplexer: .none)
            == "\u{1B}]9;hark: ci: x\u{7}")
        #expect(TerminalNotification.sequence(title: "hark: ci", body: "x", flavour: .osc777, multiplexer: .tmux)
            == "\u{1B}Ptmux;\u{1B}\u{1B}]777;notify;hark: ci;x\u{7}\u{1B}\\")
        #expect(TerminalNotification.sequence(title: "hark: ci", body: "x", flavour: .osc777, multiplexer: .screen)
            == "\u{1B}P\u{1B}]777;notify;hark: ci;x\u{7}\u{1B}\\")
        // A body that tries to close the wrapper early stays inside it.
        let wrapped = TerminalNotification.sequence(title: "t", body: "a\u{1B}\\\u{1B}]0;owned\u{7}", flavour: .osc777, multiplexer: .tmux)
        #expect(wrapped.components(separatedBy: "\u{1B}\\").count == 2, "one ST, the wrapper's: \(wrapped.debugDescription)")
    }

    @Test func theTerminalIsToldFromItsEnvironment() {
        #expect(TerminalNotification.multiplexer(["TMUX": "/tmp/tmux-1/default,1,0"]) == .tmux)
        #expect(TerminalNotification.multiplexer(["STY": "1234.pts-0.host"]) == .screen)
        #expect(TerminalNotification.multiplexer(["TERM": "xterm"]) == .none)
        #expect(TerminalNotification.flavour(["TERM_PROGRAM": "iTerm.app"]) == .osc9)
        #expect(TerminalNotification.flavour(["WT_SESSION": "x"]) == .osc9)
        #expect(TerminalNotification.flavour(["TERM": "foot"]) == .osc777)
        #expect(TerminalNotification.isKnownToShow(["TERM": "xterm-kitty"]))
        #expect(TerminalNotification.isKnownToShow(["TERM_PROGRAM": "WezTerm"]))
        #expect(!TerminalNotification.isKnownToShow(["TERM": "xterm-256color"]))
    }

    @Test func eachSettingPicksItsChannel() throws {
        let bin = TemporaryDirectory()
        let sender = bin.write("notify-send", "#!/bin/sh\n", mode: 0o755)
        let desktop = ["PATH": bin.path, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1/bus", "TERM": "xterm-256color"]
        let note = HarkNotification(session: "ci", what: "build ended", words: "app #3 FAILURE")
        let noon = Date(timeIntervalSince1970: 0)
        func channel(_ mode: NotifySettings.Mode, _ environment: [String: String], terminal: Bool = true) -> Notifier.Channel? {
            var write: (@Sendable (String) -> Void)?
            if terminal { write = { _ in } }
            let notifier = Notifier(environment: environment, write: write, now: { noon }, run: { _ in })
            return notifier.channel(for: note, NotifySettings(mode: mode))
        }
        #expect(channel(.auto, ["TERM": "foot"]) == .terminal("\u{1B}]777;notify;hark: ci;build ended: app #3 FAILURE\u{7}"))
        #expect(channel(.auto, desktop) == .desktop([sender, "--app-name=hark", "--", "hark: ci", "build ended: app #3 FAILURE"]))
        #expect(channel(.auto, ["TERM": "xterm-256color"]) == .bell)
        #expect(channel(.auto, ["TERM": "xterm-256color"], terminal: false) == nil)
        #expect(channel(.auto, ["TMUX": "x"]) == .terminal("\u{1B}Ptmux;\u{1B}\u{1B}]777;notify;hark: ci;build ended: app #3 FAILURE\u{7}\u{1B}\\"))
        #expect(channel(.desktop, ["TERM": "foot"]) == .bell, "no desktop session: the bell")
        #expect(channel(.bell, desktop) == .bell)
        #expect(channel(.off, desktop) == nil)
    }

    @Test func quietHoursWrapPastMidnight() throws {
        let night = try #require(QuietHours(parsing: "22:00-07:00"))
        #expect(night.contains(minuteOfDay: 23 * 60))
        #expect(night.contains(minuteOfDay: 6 * 60 + 59))
        #expect(!night.contains(minuteOfDay: 7 * 60))
        #expect(!night.contains(minuteOfDay: 12 * 60))
        let lunch = try #require(QuietHours(parsing: "12:00 - 13:30"))
        #expect(lunch.contains(minuteOfDay: 12 * 60 + 45))
        #expect(!lunch.contains(minuteOfDay: 14 * 60))
        #expect(QuietHours(parsing: "25:00-07:00") == nil)
        #expect(QuietHours(parsing: "night") == nil)
        let config = try ConfigFile.parse("[hark]\nnotify = loud\nquiet_hours = soon\n", path: "config")
        #expect(NotifySettings.problems(in: config).count == 2)
        let quiet = try ConfigFile.parse("[hark]\nnotify = desktop\nquiet_hours = 00:00-23:59\n[session ci]\nkind = jenkins\nnotify = off\n",
                                         path: "config")
        #expect(NotifySettings.of(nil, in: quiet).mode == .desktop)
        #expect(NotifySettings.of(quiet.session(named: "ci"), in: quiet).mode == .off)
        let always = Notifier(environment: ["TERM": "foot"], write: { _ in }, run: { _ in })
        #expect(always.channel(for: HarkNotification(session: "a", what: "b", words: ""), NotifySettings.of(nil, in: quiet)) == nil,
                "inside quiet hours nothing goes out")
    }

    @Test func aNotificationIsDueOutOfSightOnly() {
        #expect(NotificationPolicy.shouldNotify(session: "ci", current: "ci", focus: .unfocused, watched: true))
        #expect(!NotificationPolicy.shouldNotify(session: "ci", current: "ci", focus: .focused, watched: false))
        #expect(NotificationPolicy.shouldNotify(session: "ci", current: "notes", focus: .focused, watched: false))
        #expect(!NotificationPolicy.shouldNotify(session: "ci", current: "ci", focus: .unknown, watched: false),
                "a terminal that does not report focus notifies for other sessions only")
        #expect(NotificationPolicy.shouldNotify(session: "ci", current: "notes", focus: .unknown, watched: false))
    }
}
