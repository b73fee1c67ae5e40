import FoundationEssentials
import Glibc

/// Converts mono audio from one sample rate to another with a windowed-sinc filter, block by
/// block. Going down, the filter cuts just below the new Nyquist frequency, so nothing above
/// it folds back as noise the recogniser would hear. Positions are kept as exact fractions of
/// the two rates, so a long file does not drift.
public struct Resampler {
    public let inputRate: Int
    public let outputRate: Int
    /// Filter half-width in input samples.
    private let halfWidth: Int
    /// The kernel sampled `resolution` times per input sample, from 0 to halfWidth.
    private let table: [Float]
    private static let resolution = 256
    /// Input not yet consumed, starting at absolute input index `base`.
    private var buffer: [Float] = []
    private var base = 0
    /// The next output sample's index, and how many input samples came in so far.
    private var produced = 0
    private var consumed = 0

    public init(from inputRate: Int, to outputRate: Int, zeroCrossings: Int = 16) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        // Cutoff relative to the input's Nyquist: the lower of the two, with a little room.
        let cutoff = min(1, Double(outputRate) / Double(inputRate)) * 0.95
        let halfWidth = Int((Double(zeroCrossings) / cutoff).rounded(.up))
        self.halfWidth = halfWidth
        let resolution = Self.resolution
        let beta = 8.0
        let denominator = Self.besselI0(beta)
        table = (0...(halfWidth * resolution + 1)).map { index in
            let x = Double(index) / Double(resolution)  // distance in input samples
            let ratio = x / Double(halfWidth)
            guard ratio <= 1 else { return 0 }
            let window = Self.besselI0(beta * (1 - ratio * ratio).squareRoot()) / denominator
            let argument = Double.pi * cutoff * x
            let sinc = x == 0 ? 1 : sin(argument) / argument
            return Float(cutoff * sinc * window)
        }
    }

    public var isIdentity: Bool { inputRate == outputRate }

    /// Feeds input; returns the output samples that are now complete.
    public mutating func process(_ input: [Float]) -> [Float] {
        if isIdentity { return input }
        buffer += input
        consumed += input.count
        return drain(until: consumed)
    }

    /// The rest, once the input has ended (its tail filtered against silence).
    public mutating func finish() -> [Float] {
        if isIdentity { return [] }
        let total = Int((Double(consumed) * Double(outputRate) / Double(inputRate)).rounded(.up))
        buffer += [Float](repeating: 0, count: halfWidth + 1)
        var tail = drain(until: consumed + halfWidth + 1)
        if produced > total { tail.removeLast(min(tail.count, produced - total)) }
        return tail
    }

    /// Produces outputs whose filter window lies within the input available up to `limit`.
    private mutating func drain(until limit: Int) -> [Float] {
        var output: [Float] = []
        let step = Float(Self.resolution)
        while true {
            // The output sample's position in input samples: whole part and fraction.
            let numerator = produced * inputRate
            let center = numerator / outputRate
            let fraction = Float(numerator % outputRate) / Float(outputRate)
            guard center + halfWidth < limit else { break }
            var sum: Float = 0
            let first = max(center - halfWidth + 1, 0)
            buffer.withUnsafeBufferPointer { samples in
                table.withUnsafeBufferPointer { kernel in
                    for index in first...(center + halfWidth) {
                        let distance = abs(Float(index - center) - fraction) * step
                        let slot = Int(distance)
                        guard slot + 1 < kernel.count else { continue }
                        let weight = kernel[slot] + (kernel[slot + 1] - kernel[slot]) * (distance - Float(slot))
                        sum += samples[index - base] * weight
                    }
                }
            }
            output.append(sum)
            produced += 1
        }
        // Keep only what the next outputs' windows still need.
        let keepFrom = max((produced * inputRate) / outputRate - halfWidth, 0)
        if keepFrom > base {
            buffer.removeFirst(min(keepFrom - base, buffer.count))
            base = keepFrom
        }
        return output
    }

    /// The modified Bessel function of the first kind, order 0 (for the Kaiser window).
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0
        var term = 1.0
        var k = 1.0
        while term > 1e-12 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }
}

/// Float samples in -1…1 to 16-bit, clipping what goes beyond.
public enum PCM {
    public static func int16(_ samples: [Float]) -> [Int16] {
        samples.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
    }

    public static func float(_ samples: UnsafeBufferPointer<Int16>) -> [Float] {
        samples.map { Float($0) / 32768 }
    }

    /// The level of a block in dBFS (-100 for silence).
    public static func level(_ samples: UnsafeBufferPointer<Int16>) -> Double {
        guard !samples.isEmpty else { return -100 }
        var sum = 0.0
        for sample in samples { sum += Double(sample) * Double(sample) }
        let rms = (sum / Double(samples.count)).squareRoot() / 32768
        return rms > 0 ? max(-100, 20 * log10(rms)) : -100
    }
}
