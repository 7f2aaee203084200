//! Whether the law reaches the subject at all: (4) applicability, (5) exemptions, the (6)
//! definition of a land development activity, and the (7)(a) SWPPP requirement that follows.

use super::exemptions::check_claim;
use super::{acres, and3, assumed, refused, refused_note, Decision, Decisions, RuleId};
use crate::law::prose::prose;
use crate::record::{SiteStatus, Stated, SITE};
use crate::subject::SubjectKind;
use serde_json::Value;

/// (4): the law applies inside the town. `None` without a boundary layer.
pub fn jurisdiction(x: &Decisions) -> Decision {
    let f = x.f;
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
            prose!("The site lies partly inside {name}; the local law applies to the land development activity (4)(a). Part of it lies outside the Town."),
        ),
        (true, Some(true)) => Decision::new(
            Some(true),
            prose!("The site lies inside {name}, so the local law applies to it (4)(a)."),
        ),
        (true, Some(false)) => Decision::new(
            Some(false),
            "The site lies outside the Town boundary (sharing at most an edge with it): this local law does not apply there. Its facts are shown for information only; the law of the town it lies in governs.",
        ),
    };
    d.fact("inside", j.inside)
        .fact("wholly_inside", j.wholly_inside)
        .fact("boundary", &j.boundary_name)
}

/// (5): `true` only when a claimed exemption is verified against the law's conditions.
/// An unverified claim is `None` and changes no requirement.
pub fn exemption(x: &Decisions) -> Decision {
    let (f, r) = (x.f, x.r);
    let claims = &f.record.exemption_claims;
    let stated: Vec<&str> = claims.iter().map(|c| c.stated.as_str()).collect();
    if claims.is_empty() {
        return Decision::new(Some(false), "No exemption under (5) is claimed.")
            .fact("claimed", stated);
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
        .filter_map(|c| c.code.map(|l| prose!("(5)({l})")))
        .collect();
    Decision::new(met, reason.join(" "))
        .missing(checks.iter().filter_map(|c| c.missing.clone()))
        .fact("claimed", stated)
        .fact("codes", codes)
        .fact(
            "verified",
            checks.iter().map(|c| c.applies).collect::<Vec<_>>(),
        )
        .fact(
            "verified_by",
            claims.iter().map(|c| &c.verified_by).collect::<Vec<_>>(),
        )
}

/// (6): one acre or more disturbed, or less as part of a larger common plan.
pub fn land_development_activity(x: &Decisions) -> Decision {
    let (f, r) = (x.f, x.r);
    let a = &f.acreage;
    let pre = assumed(f);
    let plan = f.record.common_plan;
    let d = if !a.recorded {
        Decision::new(
            None,
            "No disturbance is recorded for this site, so its disturbed area is not known.",
        )
        .missing(["the disturbance polygons (areas to be cleared, graded or filled)".to_string()])
    } else if a.total_acres >= r.land_development_acres {
        Decision::new(
            Some(true),
            prose!("{pre}{} disturbed, at or above the {} acre threshold of \"Land Development Activity\" (6).", acres(a.total_acres), r.land_development_acres),
        )
    } else if plan == Some(true) && a.total_acres > 0.0 {
        Decision::new(
            Some(true),
            prose!("{pre}{} disturbed, below {} acre, but \"part of a larger common plan of development or sale\" (6).", acres(a.total_acres), r.land_development_acres),
        )
    } else if !a.refused.is_empty() {
        Decision::new(
            None,
            prose!(
                "{pre}{} disturbed, below the {} acre threshold.{}",
                acres(a.total_acres),
                r.land_development_acres,
                refused_note(f)
            ),
        )
        .missing(refused(f))
    } else if plan.is_none() && a.total_acres > 0.0 {
        Decision::new(
            None,
            prose!("{pre}{} disturbed, below the {} acre threshold; whether it is \"part of a larger common plan of development or sale\" (6) is not recorded, and that decides it.", acres(a.total_acres), r.land_development_acres),
        )
        .missing([prose!("whether the site is part of a larger common plan of development or sale ({})", SITE.common_plan.name)])
    } else {
        Decision::new(
            Some(false),
            prose!("{pre}{} disturbed, below the {} acre threshold, and not part of a larger common plan: not a land development activity, so the law asks nothing of it.", acres(a.total_acres), r.land_development_acres),
        )
    };
    d.fact("total_acres", a.total_acres)
        .fact(SITE.common_plan.name, plan)
        .fact("threshold_acres", r.land_development_acres)
}

/// (7)(a): a land development activity in the town that is not exempt needs at least the
/// basic SWPPP of (7)(b)[1].
pub fn swppp_required(x: &Decisions) -> Decision {
    let j = x.get(RuleId::Jurisdiction).met;
    let lda = x.get(RuleId::LandDevelopmentActivity);
    let ex = x.get(RuleId::Exemption).met;
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
        .missing(lda.missing.clone())
        .fact("in_jurisdiction", j)
        .fact("land_development_activity", lda.met)
        .fact("exempt", ex)
}

/// (4)(d) with (7)(a): a site under construction that needs a SWPPP and has no approved
/// one. A status or approval in words no vocabulary knows decides nothing: `null`.
pub fn active_without_approval(x: &Decisions) -> Decision {
    let f = x.f;
    let c = &f.record;
    let required = x.get(RuleId::SwpppRequired);
    let approval = c.swppp_approval.known();
    let building = match &c.status.value {
        _ if f.kind != SubjectKind::Site => {
            return Decision::new(
                Some(false),
                "A plan checked before it is filed is not a site under construction.",
            )
            .fact("status", Value::Null);
        }
        Stated::Known(s) => Ok(*s == SiteStatus::UnderConstruction),
        Stated::NotRecorded => Err((
            "no status is recorded".to_string(),
            "the site's status".to_string(),
        )),
        Stated::Unreadable(w) => Err((
            prose!("the status '{w}' is not a word the status vocabulary knows"),
            prose!("a status the vocabulary knows (got '{w}')"),
        )),
    };
    let d = match (building, &c.swppp_approval) {
        (Err((why, missing)), _) => Decision::new(
            None,
            prose!("Whether construction is under way cannot be told: {why}."),
        )
        .missing([missing]),
        (Ok(false), _) => Decision::new(
            Some(false),
            prose!("The site is not under construction (status: {}).", status_words(&c.status.value)),
        ),
        (Ok(true), Stated::Unreadable(w)) => Decision::new(
            None,
            prose!("The site is under construction, and its SWPPP approval is recorded as '{w}', which the approval vocabulary does not know."),
        )
        .missing([prose!("the SWPPP approval's decision (got '{w}')")]),
        (Ok(true), _) if approval.is_some_and(|a| a.approved()) => {
            let a = approval.map(|a| a.describe()).unwrap_or_default();
            Decision::new(Some(false), prose!("The SWPPP approval is recorded: {a}."))
        }
        (Ok(true), _) => {
            let recorded = approval
                .map(|a| prose!(" (recorded: {})", a.describe()))
                .unwrap_or_default();
            match required.met {
                Some(true) => Decision::new(Some(true), prose!("The site is under construction and needs a SWPPP, but no approved SWPPP is recorded{recorded}: the SWPPP is approved before work (4)(d), (7)(a).")),
                Some(false) => Decision::new(Some(false), prose!("The site is under construction with no approved SWPPP{recorded}, but this law requires no SWPPP for it.")),
                None => Decision::new(None, prose!("The site is under construction with no approved SWPPP{recorded}; whether it needs one is undetermined.")).missing(required.missing.clone()),
            }
        }
    };
    d.fact(SITE.status.name, status_code(&c.status.value))
        .fact(SITE.swppp_approval.name, approval.map(|a| a.describe()))
        .fact("swppp_required", required.met)
}

/// The status as its code, or the unreadable word as written.
pub fn status_code(s: &Stated<SiteStatus>) -> Option<String> {
    match s {
        Stated::Known(s) => Some(s.as_str().to_string()),
        Stated::Unreadable(w) => Some(w.clone()),
        Stated::NotRecorded => None,
    }
}

fn status_words(s: &Stated<SiteStatus>) -> String {
    match s {
        Stated::Known(s) => s.words().to_string(),
        Stated::Unreadable(w) => prose!("'{w}'"),
        Stated::NotRecorded => "not recorded".into(),
    }
}
