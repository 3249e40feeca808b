import Foundation

/// A point on Earth in degrees.
public struct GeoLocation: Sendable, Equatable {
    public let latitude: Double
    public let longitude: Double

    /// - Throws: `422 validation_failed` on `field` for values out of range or not finite.
    public init(latitude: Double, longitude: Double, field: String = "location") throws(SoomError) {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw .validationFailed(field: field, "latitude must be within -90…90 and longitude within -180…180.")
        }
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// The radii the nearby feed accepts, in kilometres.
public enum NearbyRadius: Int, Sendable, CaseIterable {
    case one = 1
    case five = 5
    case ten = 10
    case twenty = 20
    case fifty = 50

    public var metres: Double { Double(self.rawValue) * 1000 }

    public init(kilometres: Int) throws(SoomError) {
        guard let radius = NearbyRadius(rawValue: kilometres) else {
            throw .validationFailed(field: "radiusKm", "radiusKm must be one of 1, 5, 10, 20, 50.")
        }
        self = radius
    }
}
