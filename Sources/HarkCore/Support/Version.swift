public enum HarkVersion {
    public static let string = "0.1.0"
}
