//! Who a request comes from, for counting failed token checks: the TCP peer, or, when the
//! peer is a proxy the operator declared (`--trusted-proxy`), the address that proxy names in
//! `X-Forwarded-For`. As nginx's `real_ip` with `real_ip_recursive on`: the header is read
//! only from a trusted peer, from its right end (the hop nearest to us) leftwards for as long
//! as each hop is itself trusted; the first untrusted address is the client. What a client
//! writes into the header itself sits to the left of what the proxies append, so it is never
//! reached while an untrusted hop stands to its right. A hop that is not an address ends the
//! walk at the last address read. Without trusted proxies the header is ignored.

use axum::http::HeaderMap;
use std::net::IpAddr;
use std::str::FromStr;

/// An address or a network: `10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpRange {
    network: IpAddr,
    prefix_bits: u8,
}

fn bits(ip: IpAddr) -> (u128, u8) {
    match ip {
        IpAddr::V4(v4) => (u128::from(u32::from(v4)), 32),
        IpAddr::V6(v6) => (u128::from(v6), 128),
    }
}

/// `value` with every bit past the first `prefix_bits` of a `width`-bit address cleared.
fn masked(value: u128, width: u8, prefix_bits: u8) -> u128 {
    let host_bits = u32::from(width - prefix_bits);
    value
        .checked_shr(host_bits)
        .unwrap_or(0)
        .checked_shl(host_bits)
        .unwrap_or(0)
}

impl IpRange {
    pub fn contains(&self, ip: IpAddr) -> bool {
        let (net, width) = bits(self.network);
        let (addr, addr_width) = bits(ip.to_canonical());
        width == addr_width && masked(addr, width, self.prefix_bits) == net
    }
}

impl FromStr for IpRange {
    type Err = String;
    fn from_str(text: &str) -> Result<IpRange, String> {
        let text = text.trim();
        let bad = |why: &str| format!("'{text}' is not an IP address or network ({why})");
        let (addr, prefix) = match text.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (text, None),
        };
        let ip = IpAddr::from_str(addr)
            .map_err(|_| bad("e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8"))?
            .to_canonical();
        let (value, width) = bits(ip);
        let prefix_bits = match prefix {
            None => width,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|n| *n <= width)
                .ok_or_else(|| bad(&format!("the prefix length must be 0 to {width}")))?,
        };
        // Host bits past the prefix are dropped, as nginx does: 10.0.0.1/8 is 10.0.0.0/8.
        let value = masked(value, width, prefix_bits);
        let network = match ip {
            IpAddr::V4(_) => IpAddr::V4(u32::try_from(value).map_err(|_| bad("too wide"))?.into()),
            IpAddr::V6(_) => IpAddr::V6(value.into()),
        };
        Ok(IpRange {
            network,
            prefix_bits,
        })
    }
}

/// The proxies whose `X-Forwarded-For` is believed (none by default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpRange>);

impl TrustedProxies {
    pub fn new(ranges: Vec<IpRange>) -> TrustedProxies {
        TrustedProxies(ranges)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|r| r.contains(ip))
    }

    /// The client of a request from `peer` (the TCP peer; `None` for a request made inside
    /// the process), reading `X-Forwarded-For` only when `peer` is trusted.
    pub fn client(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> Option<IpAddr> {
        let peer = peer.map(|p| p.to_canonical());
        let Some(mut client) = peer.filter(|p| self.contains(*p)) else {
            return peer;
        };
        // Several headers read as one list, in order (RFC 9110, 5.3).
        let hops: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .collect();
        for hop in hops.iter().rev() {
            let Some(ip) = hop_address(hop) else { break };
            client = ip;
            if !self.contains(ip) {
                break;
            }
        }
        Some(client)
    }
}

/// One hop of `X-Forwarded-For`: an address, perhaps with a port (`1.2.3.4:5`, `[::1]:5`).
fn hop_address(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    let ip = IpAddr::from_str(hop)
        .ok()
        .or_else(|| std::net::SocketAddr::from_str(hop).ok().map(|s| s.ip()))?;
    Some(ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn proxies(list: &[&str]) -> TrustedProxies {
        TrustedProxies::new(list.iter().map(|r| r.parse().expect("range")).collect())
    }

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().expect("ip"))
    }

    fn forwarded(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append("x-forwarded-for", HeaderValue::from_str(v).expect("value"));
        }
        h
    }

    #[test]
    fn ranges_parse_and_contain() {
        let r: IpRange = "10.1.2.3/8".parse().expect("range");
        assert!(r.contains("10.200.0.1".parse().expect("ip")));
        assert!(!r.contains("11.0.0.1".parse().expect("ip")));
        assert!(r.contains("::ffff:10.0.0.9".parse().expect("ip")));
        let one: IpRange = "192.0.2.7".parse().expect("range");
        assert!(one.contains("192.0.2.7".parse().expect("ip")));
        assert!(!one.contains("192.0.2.8".parse().expect("ip")));
        let v6: IpRange = "fd00::/8".parse().expect("range");
        assert!(v6.contains("fd12::1".parse().expect("ip")));
        assert!(!v6.contains("10.0.0.1".parse().expect("ip")));
        let all: IpRange = "0.0.0.0/0".parse().expect("range");
        assert!(all.contains("203.0.113.1".parse().expect("ip")));
        for bad in ["", "10.0.0.0/33", "fd00::/129", "example.org", "10.0.0.0/x"] {
            let err = bad.parse::<IpRange>().unwrap_err();
            assert!(err.contains("is not an IP address"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_header_is_read_from_trusted_peers_only_from_the_right() {
        let t = proxies(&["10.0.0.0/8"]);
        let h = forwarded(&["203.0.113.9, 198.51.100.4"]);
        // An untrusted peer's header is ignored.
        assert_eq!(t.client(ip("192.0.2.1"), &h), ip("192.0.2.1"));
        // A trusted peer: the right-most address.
        assert_eq!(t.client(ip("10.0.0.5"), &h), ip("198.51.100.4"));
        // Through two proxies: the first untrusted hop from the right, whatever the client
        // wrote to the left of it.
        let h = forwarded(&["1.1.1.1, 198.51.100.4", "10.0.0.7"]);
        assert_eq!(t.client(ip("10.0.0.5"), &h), ip("198.51.100.4"));
        // Every hop trusted: the left-most.
        let h = forwarded(&["10.9.9.9, 10.0.0.7"]);
        assert_eq!(t.client(ip("10.0.0.5"), &h), ip("10.9.9.9"));
        // A hop that is not an address ends the walk at the last address read.
        let h = forwarded(&["198.51.100.4, garbage, 10.0.0.7"]);
        assert_eq!(t.client(ip("10.0.0.5"), &h), ip("10.0.0.7"));
        // Ports and brackets; no header at all.
        let h = forwarded(&["[2001:db8::1]:443"]);
        assert_eq!(t.client(ip("10.0.0.5"), &h), ip("2001:db8::1"));
        assert_eq!(t.client(ip("10.0.0.5"), &HeaderMap::new()), ip("10.0.0.5"));
        // No trusted proxies: never read.
        let none = TrustedProxies::default();
        let h = forwarded(&["198.51.100.4"]);
        assert_eq!(none.client(ip("10.0.0.5"), &h), ip("10.0.0.5"));
        assert_eq!(none.client(None, &h), None);
    }
}
