import FoundationEssentials
import Glibc

/// Whether `/talk` listens while it speaks, through the sound server's echo canceller
/// (`echo_cancel`): `auto` when the server has one, `on` always (an error when it cannot),
/// `off` never (half duplex: the microphone is closed while hark speaks).
public enum EchoCancelSetting: String, Sendable, Equatable, CaseIterable {
    case auto, on, off
}

/// PulseAudio's `module-echo-cancel` (PipeWire's pulse server has one too), loaded for hark's
/// own streams while `/talk` runs. hark plays into the module's sink and records from its
/// source, which is the microphone with what that sink played taken out: hark can listen while
/// it speaks, on loudspeakers, without hearing itself. The module filters the default
/// microphone and output (PULSE_SOURCE and PULSE_SINK when set), under names of hark's own; no
/// other program's sound goes through it, and `unload` removes it when the conversation ends.
public final class EchoCanceller: @unchecked Sendable {
    /// Where hark's streams go while the canceller is loaded.
    public let devices: AudioDevices
    private let module: String
    private let pactl: String
    private let environment: [String: String]
    private let lock = Lock()
    private var loaded = true

    private init(devices: AudioDevices, module: String, pactl: String, environment: [String: String]) {
        self.devices = devices
        self.module = module
        self.pactl = pactl
        self.environment = environment
    }

    deinit { unload() }

    static let noPactl = "install PulseAudio's utilities (pulseaudio-utils), or set echo_cancel = auto or off to talk "
        + "without interrupting by voice"
    static let notLoaded = "set echo_cancel = auto or off to talk without interrupting by voice (use headphones then, "
        + "or wait for the reply's end)"

    /// Loads the module for streams opened through `devices` (its server); throws when the
    /// server has no echo canceller or `pactl`, which loads it, is missing.
    public static func load(devices: AudioDevices,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws -> EchoCanceller {
        guard let pactl = ["/usr/bin/pactl", "/bin/pactl"].first(where: { access($0, X_OK) == 0 })
            ?? ServedModel.findExecutable("pactl", in: environment["PATH"]) else {
            throw HarkError.unavailable("the echo canceller needs pactl, which is not installed", hint: noPactl)
        }
        var environment = environment
        if let server = devices.pulseServer { environment["PULSE_SERVER"] = server }
        let names = "hark_\(getpid())_echo_cancel"
        var arguments = [pactl, "load-module", "module-echo-cancel", "source_name=\(names)_source", "sink_name=\(names)_sink"]
        if let source = devices.pulseSource ?? environment["PULSE_SOURCE"], !source.isEmpty {
            arguments.append("source_master=\(source)")
        }
        if let sink = devices.pulseSink ?? environment["PULSE_SINK"], !sink.isEmpty { arguments.append("sink_master=\(sink)") }
        // WebRTC's canceller is the better one, without its analog gain control: that turns the
        // microphone's own volume down (a pipe source's to near silence, so speech went unheard).
        // PipeWire's module takes other aec_args, and a server built without WebRTC has Speex:
        // each is tried in turn.
        var result = Subprocess.Result(status: -1, stdout: Data(), stderr: Data())
        for extra in [["aec_method=webrtc", "aec_args=analog_gain_control=0"], ["aec_method=webrtc"], []] where result.status != 0 {
            result = try Subprocess.run(arguments + extra, environment: environment, timeout: 15)
        }
        let index = String(decoding: result.stdout, as: UTF8.self).trimmed
        guard result.status == 0, Int(index) != nil else {
            let said = String(decoding: result.stderr, as: UTF8.self).lineSlices(keepingEmpty: false).last.map { String($0).trimmed } ?? ""
            throw HarkError.unavailable("the sound server did not load its echo canceller (module-echo-cancel)"
                + (said.isEmpty ? "" : ": " + said), hint: notLoaded)
        }
        var routed = devices
        routed.pulseSink = names + "_sink"
        routed.pulseSource = names + "_source"
        return EchoCanceller(devices: routed, module: index, pactl: pactl, environment: environment)
    }

    /// Removes the module (once); streams still open on it are moved by the server to the defaults.
    public func unload() {
        let wasLoaded: Bool = lock.withLock {
            defer { loaded = false }
            return loaded
        }
        guard wasLoaded else { return }
        _ = try? Subprocess.run([pactl, "unload-module", module], environment: environment, timeout: 15)
    }
}
