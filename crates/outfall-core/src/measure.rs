//! Metric measurements on lon/lat data at the scale of a site or a reach (a few km): a local
//! equirectangular frame in metres, accurate to well under 0.1% over that range.

use geo::{Coord, MapCoords};

#[derive(Debug, Clone, Copy)]
pub struct LocalFrame {
    lon0: f64,
    lat0: f64,
    m_per_deg_lon: f64,
    m_per_deg_lat: f64,
}

impl LocalFrame {
    /// A frame centred on (lon, lat), with WGS84 metres per degree at that latitude.
    pub fn around(lon: f64, lat: f64) -> LocalFrame {
        let phi = lat.to_radians();
        LocalFrame {
            lon0: lon,
            lat0: lat,
            m_per_deg_lat: 111_132.954 - 559.822 * (2.0 * phi).cos() + 1.175 * (4.0 * phi).cos(),
            m_per_deg_lon: 111_412.84 * phi.cos() - 93.5 * (3.0 * phi).cos(),
        }
    }

    pub fn to_m(&self, c: Coord<f64>) -> Coord<f64> {
        Coord {
            x: (c.x - self.lon0) * self.m_per_deg_lon,
            y: (c.y - self.lat0) * self.m_per_deg_lat,
        }
    }

    pub fn project<G: MapCoords<f64, f64, Output = G>>(&self, g: &G) -> G {
        g.map_coords(|c| self.to_m(c))
    }

    /// Degrees of longitude and latitude that span `m` metres here (for R-tree envelopes).
    pub fn degrees_for_m(&self, m: f64) -> (f64, f64) {
        (m / self.m_per_deg_lon.max(1.0), m / self.m_per_deg_lat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_degree_of_latitude_near_clay() {
        let f = LocalFrame::around(-76.2, 43.15);
        let p = f.to_m(Coord { x: -76.2, y: 44.15 });
        assert!((p.y - 111_100.0).abs() < 150.0, "{}", p.y);
    }
}
