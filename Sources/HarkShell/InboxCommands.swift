import FoundationEssentials
import Glibc
import HarkCore

/// `hark inbox` and `hark watch`: what arrived unread, and the work followed after hark exits.
extension HarkCommandLine {
    /// `hark inbox [--json] [--all] [--count] [ID]`: unread arrivals oldest first; `ID` opens
    /// one and marks it read; `--count` prints their number alone, for a status bar.
    func inbox(_ parsed: ParsedOptions) throws -> Int32 {
        let paths = Paths.fromEnvironment()
        if let reference = parsed.words.first {
            guard parsed.words.count == 1 else { throw HarkError.usage("usage: hark inbox [ID]") }
            let workspace = try openWorkspace()
            let document = try workspace.openInboxItem(reference)
            if parsed.flag("--json") {
                let id = Int64(reference.hasPrefix("#") ? String(reference.dropFirst()) : reference) ?? 0
                if let message = try workspace.message(id: id) { terminal.write(Export.messageJSON(message).encoded() + "\n") }
            } else {
                terminal.show(document)
            }
            return 0
        }
        let store = try readableStore(paths)
        if parsed.flag("--count") {
            terminal.write("\(try store.unreadCount())\n")
            return 0
        }
        let items = try store.inbox(all: parsed.flag("--all"))
        if parsed.flag("--json") {
            terminal.write(items.map { $0.json.encoded() + "\n" }.joined())
            return 0
        }
        if items.isEmpty {
            if terminal.capabilities.isTTY { terminal.write("nothing unread\n") }
            return 0
        }
        terminal.show(items.map(Workspace.inboxLine))
        return 0
    }

    /// `hark watch [--once] [--listen HOST:PORT]`: follows the work hark left running to its
    /// end, records each end as an unread reply in its thread, and notifies.
    func watch(_ parsed: ParsedOptions) throws -> Int32 {
        let listen = parsed.value("--listen")
        let once = parsed.flag("--once")
        if once && listen != nil { throw HarkError.usage("--once looks once and exits; --listen waits for pushes: give one of them") }
        let workspace = try openWorkspace()
        let terminal = self.terminal
        let notifier = terminal.notifier()
        let watcher = WorkWatcher(workspace: workspace, recorded: { recorded in
            terminal.write("recorded: " + recorded.line + "\n")
            notifier.notify(recorded.notification, NotifySettings.of(workspace.config.session(named: recorded.work.session),
                                                                      in: workspace.config))
        }, problem: { terminal.writeError("hark watch: " + $0 + "\n") })
        if once {
            let left = try blocking { await watcher.lookOnce() }
            Notifier.waitUntilSent()
            if left > 0 { terminal.write("\(left) still running\n") }
            return left == 0 ? 0 : 1
        }
        var pushes: AsyncStream<Int64>?
        var listener: PushListener?
        if let listen {
            let (stream, continuation) = AsyncStream<Int64>.makeStream()
            let made = try PushListener(address: listen, store: workspace.store) { continuation.yield($0) }
            made.start()
            terminal.write("listening for push notifications on http://\(made.host.contains(":") ? "[\(made.host)]" : made.host):\(made.port)/\n")
            (pushes, listener) = (stream, made)
        }
        terminal.catchSignals([SIGINT, SIGTERM, SIGHUP])
        let running = Task.detached { [pushes] in await watcher.run(pushes: pushes) }
        let loop = EventLoop(terminal: terminal)
        while true {
            let wake = loop.wait(EventLoop.Interest(signals: true))
            guard let signal = wake.signals.first(where: { [SIGINT, SIGTERM, SIGHUP].contains($0) }) else { continue }
            running.cancel()
            listener?.stop()
            Notifier.waitUntilSent()
            // As any signal that ends hark: 128 + its number (130 for Ctrl-C, 143 for SIGTERM).
            return 128 + signal
        }
    }
}
