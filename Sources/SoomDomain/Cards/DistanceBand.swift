/// How far away a card is said to be: never closer than it is, and coarsely, so a distance does
/// not narrow a card's cell down.
public enum DistanceBand {
    /// `exact` metres rounded up: to a whole 100 m below 1 km, to a whole 1,000 m from 1 km on;
    /// never below 100 (also for a negative or NaN distance). Capped at half the Earth's
    /// circumference, the farthest two points can be.
    public static func metres(_ exact: Double) -> Int {
        guard exact > 100 else { return 100 }
        let distance = min(exact, .pi * GeoCell.earthRadius)
        let step: Double = distance < 1000 ? 100 : 1000
        return Int((distance / step).rounded(.up) * step)
    }
}
