/// The typefaces a card can be set in.
public enum CardFont: String, Sendable, CaseIterable, Equatable {
    case `default`, serif, handwriting, rounded
}
