import FoundationEssentials
import Glibc
import HarkCore

/// The prompt, and what the shell does between the keys of a line: signals, replies that
/// ended in the background, and the control keys (Ctrl-C, Ctrl-Z, Ctrl-L, Tab on a paste).
extension Shell {
    // MARK: Prompt

    func prompt() -> String {
        let text = composePrompt()
        promptWidth = TextWidth.of(Self.visibleText(text))
        return text
    }

    /// The prompt without the sequences bracketed by "\u{1}" (what takes columns).
    public static func visibleText(_ prompt: String) -> String {
        prompt.split(separator: "\u{1}", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 0 }.map { String($0.element) }.joined()
    }

    private func composePrompt() -> String {
        let indicator = listenIndicator.map { styled($0 + " ", .accent) } ?? ""
        if !draft.isEmpty { return indicator + visible(ansi.start(.dim)) + "… " + visible(ANSI.reset) }
        // A form the reply asks: the line answers it, and the prompt says what it asks.
        if let asked = liveReply?.formPrompt {
            return (indicator + styled(Self.clip(TerminalSanitizer.visible(asked), 40), .accent) + styled(" › ", .bold))
                .replacingOccurrences(of: "\u{1}\u{1}", with: "")
        }
        var text = indicator
        let unread = ((try? workspace.unreadCounts()) ?? [:]).filter { $0.key != workspace.currentSession && $0.value > 0 }
        if !unread.isEmpty {
            let counts = unread.keys.sorted().map { "\($0) \(unread[$0]!)" }.joined(separator: " · ")
            text += styled("[\(counts)] ", .warning)
        }
        let session = workspace.currentConfig
        text += styled(session.name, .accent)
        if session.isInsecure { text += styled(" !insecure", .error) }
        if let thread = try? workspace.currentThread() {
            text += styled(" · " + Self.clip(TerminalSanitizer.visible(thread.title), 24), .dim)
        }
        if let badge = (try? workspace.backend(for: session.name))?.promptBadge() { text += styled(" " + badge, .warning) }
        let running = workspace.runningJobs(session: session.name).count
        if running > 0 { text += styled(" ⟳\(running)", .dim) }
        text += styled(" › ", .bold)
        // libedit reads "\u{1}\u{1}" as a literal; merge neighbouring invisible runs instead.
        return text.replacingOccurrences(of: "\u{1}\u{1}", with: "")
    }

    static func clip(_ text: String, _ length: Int) -> String {
        text.count > length ? String(text.prefix(length - 1)) + "…" : text
    }

    /// Colour codes bracketed for libedit so it does not count them as columns.
    private func styled(_ text: String, _ style: Style) -> String {
        guard terminal.capabilities.colors else { return text }
        return visible(ansi.start(style)) + text + visible(ansi.end(style))
    }

    private func visible(_ escape: String) -> String { escape.isEmpty ? "" : "\u{1}" + escape + "\u{1}" }

    // MARK: Between keystrokes

    /// Something woke the line reader at the prompt: signals, or a reply that ended in the
    /// background.
    func wakeAtPrompt(_ wake: EventLoop.Wake) -> ReadDecision {
        var decision = ReadDecision.keepReading
        for signal in wake.signals {
            switch signal {
            case SIGINT: decision = .interrupt
            case SIGTERM, SIGHUP:
                quitRequested = true
                loop.beginEnding()
                decision = .interrupt
            case SIGCONT: editor.redraw(clear: false, above: draftRows())
            default: break
            }
        }
        let notices = notices(in: wake.events)
        if !notices.isEmpty {
            editor.eraseLine()
            terminal.write(notices.joined(separator: "\n") + "\n" + (noticeRings ? "\u{7}" : ""))
            editor.refresh()
        }
        // A message queued behind a reply that went on in the background is due now.
        if decision == .keepReading && hasDueMessage { decision = .setAside }
        return decision
    }

    /// The lines to show for events that reach the prompt (or the line edited below a reply).
    func notices(in events: [ShellEvent]) -> [String] {
        var notices: [String] = []
        for event in events {
            switch event {
            case .backgroundEnded(let job):
                notices.append(notice(for: job))
                notifyEnded(job, watched: false, rang: noticeRings)
            case .workEnded(let recorded):
                notices.append(notice(for: recorded))
                notifyWorkEnded(recorded)
            case .speechFailed(let error): notices.append(terminal.rendered([StyledLine("hark: " + error.userMessage, .error)]))
            case .question(let question): question.answer(nil)  // its reply is no longer watched
            case .form(let form): form.answer(nil)
            default: break  // events of a reply no longer watched, a dictation that ended
            }
        }
        return notices
    }

    func notice(for job: ReplyJob) -> String {
        let style: Style = if case .failed = job.outcome { .error } else { .accent }
        return terminal.rendered([StyledLine(job.endNotice, style)])
    }

    /// Control keys at the prompt: Ctrl-C drops the line, Ctrl-Z stops hark as a job, Ctrl-L
    /// clears the screen and draws the line again, Tab on a paste's summary shows its lines.
    func keyAtPrompt(_ key: UInt8) -> ReadDecision? {
        switch key {
        case 0x03:
            return .interrupt
        case 0x1A:
            editor.stopForJobControl()
            return .keepReading
        default:
            return editingKey(key)
        }
    }

    /// The control keys that act on the line the same way at the prompt and below a reply.
    func editingKey(_ key: UInt8) -> ReadDecision? {
        switch key {
        case 0x0C:
            editor.redraw(clear: true, above: draftRows())
            return .keepReading
        case 0x09:
            return expandPaste() ? .keepReading : nil
        default:
            return nil
        }
    }

    /// The draft's lines as shown above the input line.
    func draftRows() -> String {
        draft.map { ansi.wrap("… ", .dim) + $0 + "\n" }.joined()
    }
}
