import FoundationEssentials
import Glibc
import HarkCore

/// The line edited below a streaming reply: what is typed stays visible and editable, and
/// Enter acts at once. A command runs (`/stop`, `/session NAME`, `/mute`), a message to
/// another session is sent (its reply goes on in the background), a message to the reply's
/// own session waits until the reply has ended. Ctrl-C and Ctrl-Z act on the reply, and a
/// question the reply asks takes the keys.
extension Shell {
    /// Reads lines below the reply `watch` follows until it ends or goes to the background;
    /// what `flow` is given is written above the line.
    func readDuringReply(_ watch: ReplyWatch, flow: OutputFlow) {
        let atPrompt = editor.hooks
        liveReply = watch
        editor.flow = flow
        editor.hooks.wake = { [unowned self] wake in
            watch.take(signals: wake.signals)
            if wake.signals.contains(SIGCONT) {
                flow.reset()
                editor.redraw(clear: false, above: "")
            }
            let asking = watch.fillsForm
            watch.take(events: wake.events)
            if watch.fillsForm != asking { editor.redraw(clear: false, above: "") }
            // The reply's own events (a question, speech failing) are the watch's; replies
            // that ended in the background are announced above the line.
            let ended = wake.events.filter {
                switch $0 {
                case .backgroundEnded, .workEnded: return true
                default: return false
                }
            }
            let notices = notices(in: ended)
            if !notices.isEmpty { flow.lines(notices.joined(separator: "\n") + (noticeRings ? "\u{7}" : "")) }
            watch.tick(timedOut: wake.timedOut)
            return watch.isOver ? .setAside : .keepReading
        }
        editor.hooks.key = { [unowned self] key in
            // A key that is no option (any but ASCII) still goes to a question being asked.
            let byte = key.isASCII ? UInt8(key.value) : 0xFF
            let asking = watch.fillsForm
            let decision = watch.key(byte, live: true)
            if watch.fillsForm != asking { editor.redraw(clear: false, above: "") }
            return decision ?? (key.isASCII ? editingKey(byte) : nil)
        }
        editor.hooks.timeout = { watch.timeout }
        defer {
            editor.hooks = atPrompt
            editor.flow = nil
            liveReply = nil
        }
        while !watch.isOver {
            if let line = setAside {
                setAside = nil
                if !line.isEmpty { editor.prefill(line) }
            }
            duringReply(editor.readLine(), watch)
        }
    }

    /// What a line read below a reply does.
    private func duringReply(_ read: LineRead, _ watch: ReplyWatch) {
        switch read {
        case .line(let line) where watch.fillsForm:
            watch.formLine(line)
        case .line(let line):
            entered(line)
            // /quit: the reply stops, as for Ctrl-D.
            if quitRequested { watch.take(signals: [SIGTERM]) }
        case .setAside(let line):
            setAside = line
        case .action(let action, let line):
            if action == "edit" { editAndSend(startingWith: (draft + [pastes.expand(line)]).joined(separator: "\n")) }
        case .endOfFile where watch.fillsForm:
            watch.formLine("cancel")
        case .endOfFile:
            // Ctrl-D drops the draft, or quits as at the prompt, once what was typed before it
            // has happened: the reply ends, what was queued behind it is sent.
            pastes.clear()
            if !draft.isEmpty {
                draft = []
            } else if !quitWhenDone && !loop.inputEnded {
                quitWhenDone = true
                editor.flow?.lines(ansi.wrap("hark quits once this reply has ended", .dim))
            }
        case .interrupted:
            pastes.clear()
        }
    }

    /// A message for the session whose reply is streaming waits for the reply to end; true
    /// when `line` was queued.
    func queue(_ line: String, behind job: ReplyJob) -> Bool {
        guard Self.recipient(of: line, current: workspace.currentSession) == job.session else { return false }
        remember(line)
        queued.append(QueuedMessage(text: line, after: job))
        terminal.show("queued; sent when this reply ends", .dim)
        return true
    }

    /// The session a line is a message to; nil for a command.
    static func recipient(of line: String, current: String) -> String? {
        let trimmed = line.trimmed
        if trimmed.hasPrefix("/") && !trimmed.hasPrefix("//") { return nil }
        guard trimmed.hasPrefix("@") else { return current }
        let name = trimmed.dropFirst().prefix { !$0.isWhitespace }
        return String(name)
    }

    /// A queued message whose reply has ended waits to be sent.
    var hasDueMessage: Bool { queued.first.map { !$0.after.isRunning } ?? false }

    /// Sends the first queued message if its reply has ended; true when one was sent.
    func sendDueMessage() -> Bool {
        guard hasDueMessage else { return false }
        let message = queued.removeFirst()
        terminal.show("sending what you queued: " + Self.clip(message.text.replacingOccurrences(of: "\n", with: " "), 60), .dim)
        workspace.voice.stopSpeaking()
        presenter.run(message.text)
        return true
    }

    /// Tab on a paste's summary: its lines go into the draft (shown above the line), the
    /// last one stays in the line with what was typed around the summary.
    func expandPaste() -> Bool {
        guard let (lines, line) = pastes.expandIntoDraft(editor.currentLine) else { return false }
        draft += lines
        let rows = lines.map { ansi.wrap("… ", .dim) + $0 + "\n" }.joined()
        if let flow = editor.flow {
            flow.lines(rows) { editor.replaceLine(line) }
        } else {
            editor.eraseLine()
            terminal.write(rows)
            editor.replaceLine(line)
            editor.refresh()
        }
        return true
    }
}

/// A message typed while a reply of its session streamed.
struct QueuedMessage {
    let text: String
    /// The reply it waits for.
    let after: ReplyJob
}
