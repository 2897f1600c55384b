//! Outbound requests safe from server-side request forgery, for every module that calls a URL
//! an admin or a visitor gave (create-from-url downloads, outgoing webhooks): a name is resolved
//! once, every address it gives must be public (loopback, private, link-local, multicast,
//! unspecified, shared, documentation and cloud-metadata ranges are refused in every spelling,
//! IPv4-mapped and -embedded IPv6 included) unless an operator allowed that address, and the
//! caller connects to the checked address only (`reqwest::ClientBuilder::resolve`).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use stoa_kernel::{Error, Result};
use url::{Host, Url};

/// `10.0.0.5:443,[fd00::1]:80` → the addresses (`what` names the setting in the message).
pub fn parse_allow(v: Option<&str>, what: &str) -> std::result::Result<Vec<SocketAddr>, String> {
    v.unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<SocketAddr>()
                .map_err(|_| format!("{what}: '{s}' is not ip:port"))
        })
        .collect()
}

fn v4_forbidden(a: Ipv4Addr) -> bool {
    let o = a.octets();
    a.is_unspecified()
        || a.is_loopback()
        || a.is_private()
        || a.is_link_local()
        || a.is_multicast()
        || a.is_broadcast()
        || a.is_documentation()
        || o[0] == 0
        || o[0] >= 240
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // 100.64/10 shared (carrier NAT, Alibaba metadata)
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // 192.0.0/24 protocol assignments
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // 198.18/15 benchmarking
}

fn v6_forbidden(a: Ipv6Addr) -> bool {
    let s = a.segments();
    if let Some(v4) = a.to_ipv4_mapped() {
        return v4_forbidden(v4);
    }
    // IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address.
    let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
    if s[..6] == [0, 0, 0, 0, 0, 0] && !a.is_unspecified() && !a.is_loopback() {
        return v4_forbidden(embedded(s[6], s[7]));
    }
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
        return v4_forbidden(embedded(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return v4_forbidden(embedded(s[1], s[2]));
    }
    a.is_unspecified()
        || a.is_loopback()
        || a.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // fc00::/7 unique local (fd00:ec2::254 metadata)
        || (s[0] & 0xffc0) == 0xfe80 // fe80::/10 link-local
        || (s[0] & 0xffc0) == 0xfec0 // fec0::/10 site-local
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x2001 && s[1] == 0) // Teredo
        || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]) // discard-only
}

/// May nobody reach `ip` from here?
pub fn forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => v4_forbidden(a),
        IpAddr::V6(a) => v6_forbidden(a),
    }
}

/// The one address `url` may be reached at: `allow` lists private addresses an operator allowed.
/// A refusal is a 422 on `field`, saying why.
pub async fn public_address(url: &Url, allow: &[SocketAddr], field: &str) -> Result<SocketAddr> {
    let refuse = |m: String| Error::invalid_field(field, m);
    let port = url
        .port_or_known_default()
        .ok_or_else(|| refuse("the URL has no port".into()))?;
    let addrs: Vec<SocketAddr> = match url.host() {
        Some(Host::Ipv4(a)) => vec![SocketAddr::new(IpAddr::V4(a), port)],
        Some(Host::Ipv6(a)) => vec![SocketAddr::new(IpAddr::V6(a), port)],
        Some(Host::Domain(d)) => {
            let found =
                tokio::time::timeout(Duration::from_secs(5), tokio::net::lookup_host((d, port)))
                    .await
                    .map_err(|_| refuse(format!("resolving '{d}' took too long")))?
                    .map_err(|_| refuse(format!("'{d}' does not resolve")))?;
            found.collect()
        }
        None => return Err(refuse("the URL has no host".into())),
    };
    if addrs.is_empty() {
        return Err(refuse("the host has no address".into()));
    }
    // Every address the name gives must be allowed: one private answer is enough to refuse.
    if let Some(bad) = addrs
        .iter()
        .find(|a| forbidden(a.ip()) && !allow.contains(a))
    {
        return Err(refuse(format!(
            "'{}' leads to {}, a private or reserved address; only public addresses are reached",
            url.host_str().unwrap_or_default(),
            bad.ip()
        )));
    }
    Ok(addrs[0])
}

/// Checks what can be checked of `raw` without the network: an http(s) URL without credentials;
/// a host written as an address must be public or allowed.
pub fn check_url(raw: &str, allow: &[SocketAddr], field: &str) -> Result<Url> {
    let refuse = |m: String| Error::invalid_field(field, m);
    let url = Url::parse(raw.trim()).map_err(|e| refuse(format!("not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refuse("only http and https URLs are reached".into()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refuse("URLs with credentials are not reached".into()));
    }
    let port = url.port_or_known_default().unwrap_or(0);
    let literal = match url.host() {
        Some(Host::Ipv4(a)) => Some(IpAddr::V4(a)),
        Some(Host::Ipv6(a)) => Some(IpAddr::V6(a)),
        Some(Host::Domain(_)) => None,
        None => return Err(refuse("the URL has no host".into())),
    };
    if let Some(ip) = literal
        && forbidden(ip)
        && !allow.contains(&SocketAddr::new(ip, port))
    {
        return Err(refuse(format!(
            "{ip} is a private or reserved address; only public addresses are reached"
        )));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
    }

    #[test]
    fn private_and_reserved_addresses_are_refused_in_every_spelling() {
        for bad in [
            "127.0.0.1",
            "127.1.2.3",
            "0.0.0.0",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.100.100.200",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fc00::1",
            "fd00:ec2::254",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "2001::1",
        ] {
            assert!(forbidden(ip(bad)), "{bad} must be refused");
        }
        for good in [
            "93.184.216.34",
            "172.32.0.1",
            "8.8.8.8",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(!forbidden(ip(good)), "{good} is public");
        }
    }

    #[test]
    fn numeric_hosts_are_read_as_the_address_they_spell() {
        for raw in [
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0177.0.0.1/",
            "http://127.1/",
        ] {
            let u = Url::parse(raw).ok();
            let host = u.as_ref().and_then(|u| match u.host() {
                Some(Host::Ipv4(a)) => Some(a),
                _ => None,
            });
            assert_eq!(host, Some(Ipv4Addr::LOCALHOST), "{raw}");
        }
    }

    #[test]
    fn allowed_private_addresses_parse() {
        assert_eq!(
            parse_allow(Some("10.0.0.5:443, [fd00::1]:80"), "X").map(|v| v.len()),
            Ok(2)
        );
        assert!(parse_allow(Some("10.0.0.5"), "X").is_err());
        assert_eq!(parse_allow(None, "X"), Ok(vec![]));
    }
}
