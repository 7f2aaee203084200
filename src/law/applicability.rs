//! Whether the law reaches the subject at all: (4) applicability, (5) exemptions, the (6)
//! definition of a land development activity, and the (7)(a) SWPPP requirement that follows.

use super::exemptions::check_claim;
use super::{acres, and3, assumed, refused, refused_note, Decision};
use crate::config::Rules;
use crate::facts::Facts;

/// (4): the law applies inside the town. `None` without a boundary layer.
pub fn jurisdiction(f: &Facts, _r: &Rules) -> Decision {
    let j = &f.jurisdiction;
    let name = j.boundary_name.as_deref().unwrap_or("the boundary");
    let d = match (j.boundary_loaded, j.inside) {
        (false, _) => Decision::new(
            None,
            "No boundary layer is loaded, so whether the site lies in the Town cannot be checked; the rest of the review proceeds as if it does.",
        )
        .missing(["the town boundary layer".to_string()]),
        (true, None) => Decision::new(None, "The subject has no geometry to place inside or outside the Town.")
            .missing(["the site's location".to_string()]),
        (true, Some(true)) if j.wholly_inside == Some(false) => Decision::new(
            Some(true),
            format!("The site lies partly inside {name}; the local law applies to the land development activity (4)(a). Part of it lies outside the Town."),
        ),
        (true, Some(true)) => Decision::new(
            Some(true),
            format!("The site lies inside {name}, so the local law applies to it (4)(a)."),
        ),
        (true, Some(false)) => Decision::new(
            Some(false),
            "The site lies outside the Town boundary: this local law does not apply there. Its facts are shown for information only; the law of the town it lies in governs.",
        ),
    };
    d.fact("inside", j.inside)
        .fact("wholly_inside", j.wholly_inside)
        .fact("boundary", &j.boundary_name)
}

/// (5): `true` only when a claimed exemption is verified against the law's conditions.
/// An unverified claim is `None` and changes no requirement.
pub fn exemption(f: &Facts, r: &Rules) -> Decision {
    let claims = &f.claims.exemptions;
    if claims.is_empty() {
        return Decision::new(Some(false), "No exemption under (5) is claimed.")
            .fact("claimed", claims);
    }
    let checks: Vec<_> = claims.iter().map(|c| check_claim(c, f, r)).collect();
    let met = if checks.iter().any(|c| c.applies == Some(true)) {
        Some(true)
    } else if checks.iter().all(|c| c.applies == Some(false)) {
        Some(false)
    } else {
        None
    };
    let mut reason: Vec<String> = checks.iter().map(|c| c.why.clone()).collect();
    match met {
        Some(true) => reason.push("The site is exempt from review under this law.".into()),
        Some(false) => reason.push("No exemption applies; the requirements below stand.".into()),
        None => {
            reason.push("Until the officer confirms it, the claim changes no requirement.".into())
        }
    }
    let codes: Vec<String> = checks
        .iter()
        .filter_map(|c| c.code.map(|l| format!("(5)({l})")))
        .collect();
    Decision::new(met, reason.join(" "))
        .missing(checks.iter().filter_map(|c| c.missing.clone()))
        .fact("claimed", claims)
        .fact("codes", codes)
}

/// (6): one acre or more disturbed, or less as part of a larger common plan.
pub fn land_development_activity(f: &Facts, r: &Rules) -> Decision {
    let a = &f.acreage;
    let pre = assumed(f);
    let d = if !a.recorded {
        Decision::new(
            None,
            "No disturbance is recorded for this site, so its disturbed area is not known.",
        )
        .missing(["the disturbance polygons (areas to be cleared, graded or filled)".to_string()])
    } else if a.total_acres >= r.land_development_acres {
        Decision::new(
            Some(true),
            format!("{pre}{} disturbed, at or above the {} acre threshold of \"Land Development Activity\" (6).", acres(a.total_acres), r.land_development_acres),
        )
    } else if f.claims.common_plan && a.total_acres > 0.0 {
        Decision::new(
            Some(true),
            format!("{pre}{} disturbed, below {} acre, but \"part of a larger common plan of development or sale\" (6).", acres(a.total_acres), r.land_development_acres),
        )
    } else if !a.refused.is_empty() {
        Decision::new(
            None,
            format!(
                "{pre}{} disturbed, below the {} acre threshold.{}",
                acres(a.total_acres),
                r.land_development_acres,
                refused_note(f)
            ),
        )
        .missing(refused(f))
    } else {
        Decision::new(
            Some(false),
            format!("{pre}{} disturbed, below the {} acre threshold, and not recorded as part of a larger common plan: not a land development activity, so the law asks nothing of it.", acres(a.total_acres), r.land_development_acres),
        )
    };
    d.fact("total_acres", a.total_acres)
        .fact("common_plan", f.claims.common_plan)
        .fact("threshold_acres", r.land_development_acres)
}

/// (7)(a): a land development activity in the town that is not exempt needs at least the
/// basic SWPPP of (7)(b)[1].
pub fn swppp_required(f: &Facts, r: &Rules) -> Decision {
    let j = jurisdiction(f, r).met;
    let lda = land_development_activity(f, r);
    let ex = exemption(f, r).met;
    let applies_here = j != Some(false);
    let met = and3(Some(applies_here), and3(lda.met, Some(ex != Some(true))));
    let reason = if !applies_here {
        "The site lies outside the Town, so this law requires no SWPPP here.".to_string()
    } else if ex == Some(true) {
        "A verified exemption under (5) applies: no SWPPP is required by this law.".to_string()
    } else {
        match lda.met {
            Some(true) => "A land development activity: \"No application for approval of a land development activity shall be reviewed until the appropriate board has received a Stormwater Pollution Prevention Plan (SWPPP)\" (7)(a). The SWPPP must contain at least the items of (7)(b)[1].".to_string(),
            Some(false) => "Not a land development activity: no SWPPP is required.".to_string(),
            None => "Whether a SWPPP is required depends on the disturbed area, which is not recorded.".to_string(),
        }
    };
    Decision::new(met, reason)
        .missing(lda.missing)
        .fact("in_jurisdiction", j)
        .fact("land_development_activity", lda.met)
        .fact("exempt", ex)
}

/// (4)(d) with (7)(a): an active site that needs a SWPPP and has no recorded approval.
pub fn active_without_approval(f: &Facts, r: &Rules) -> Decision {
    let c = &f.claims;
    let active = c
        .status
        .as_deref()
        .is_some_and(|s| s.eq_ignore_ascii_case("active"));
    let required = swppp_required(f, r);
    let approval = c.swppp_approval.as_deref();
    let bare = approval.is_some_and(|a| {
        matches!(
            a.to_ascii_lowercase().as_str(),
            "yes" | "y" | "true" | "t" | "1" | "approved"
        )
    });
    let d = if !active {
        Decision::new(
            Some(false),
            format!(
                "The site is not active (status: {}).",
                c.status.as_deref().unwrap_or("not recorded")
            ),
        )
    } else if let Some(a) = approval {
        Decision::new(
            Some(false),
            if bare {
                format!(
                    "The SWPPP approval is recorded only as '{a}'; record its date or reference."
                )
            } else {
                format!("The SWPPP approval is recorded: {a}.")
            },
        )
    } else {
        match required.met {
            Some(true) => Decision::new(Some(true), "The site is active and needs a SWPPP, but no SWPPP approval is recorded: the officer approves the SWPPP before work (4)(d), (7)(a)."),
            Some(false) => Decision::new(Some(false), "The site is active with no recorded SWPPP approval, but this law requires no SWPPP for it."),
            None => Decision::new(None, "The site is active with no recorded SWPPP approval; whether it needs one is undetermined.").missing(required.missing),
        }
    };
    d.fact("status", &c.status)
        .fact("swppp_approval", approval)
        .fact("swppp_required", required.met)
}
