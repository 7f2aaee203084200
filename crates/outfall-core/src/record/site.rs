//! The site record, declared: the only place that names its fields. Each line gives a
//! field's name, its type (which decides how it is read, reported and listed flat), where the
//! registry stores it, who may state it, and whether the report shows it. The order of the
//! fields is the order of the report's `site` block.

use super::declare::record;
use super::types::{Coded, ExemptionClaim, LandUseStatement, SiteStatus, Stated, SwpppApproval};
use chrono::NaiveDate;
use geo_types::Point;

record! {
    /// Everything the town's record states about one site: who and where, where the work
    /// stands, what the work is, the larger plan, the decision on its SWPPP and the (5)
    /// exemptions it claims. Built once at each edge: a file, a registry row, a drawn plan.
    pub struct Site: table sites, key id as site_id, fields SITE: SiteFields,
        flat(status, swppp_approval, exemption_claims, land_use)
    {
        /// What the town calls the site.
        name: Option<String> => Column, Applicant, Shown;
        /// Where the work stands; inspections are owed while it is under construction. (9)(a)
        status: Coded<SiteStatus> => Column, Officer, Shown;
        /// The street address of the work.
        address: Option<String> => Column, Applicant, Shown;
        /// Who applied.
        applicant: Option<String> => Column, Applicant, Shown;
        /// What the work is: a single-family residence, agricultural, or other. (7)(b)[2] C, (5)(a)
        land_use: LandUseStatement => Json, Applicant, Shown;
        /// Part of a larger common plan of development or sale. (6)
        common_plan: Option<bool> => Json, Applicant, Shown;
        /// The larger plan's acres, for Conditions B and C. (6), (7)(b)[2]
        common_plan_acres: Option<f64> => Json, Applicant, Shown;
        /// The decision on the SWPPP. (4)(c), (4)(d), (7)(b)[1][d]
        swppp_approval: Stated<SwpppApproval> => Json, Officer, Shown;
        /// The (5)(a)-(k) exemptions claimed, each with its evidence and who confirmed it. (5)
        exemption_claims: Vec<ExemptionClaim> => Json, Applicant, Shown;
        /// The parcels the site names; the report lists those its disturbance covers.
        parcel_ids: Vec<String> => Column, Applicant, Hidden;
        /// The applicant's storm-sewer outfall, "lon,lat" (WGS84). (7)(b)[1][m]
        outfall: Stated<Point<f64>> => Column, Applicant, Hidden;
    }
}

record! {
    /// The evidence the (5) clauses name, as a claim states it (`None`: not recorded).
    pub struct Evidence: part, fields EVIDENCE: EvidenceFields {
        /// (a): the work builds new structures, which "Agricultural Activity" excludes.
        new_structures: Option<bool> => Json, Applicant, Shown;
        /// (b): the silvicultural work includes landing areas or log haul roads.
        landing_or_haul_road: Option<bool> => Json, Applicant, Shown;
        /// (c): performed to maintain the original line and grade, hydraulic capacity or
        /// purpose.
        maintains_original: Option<bool> => Json, Applicant, Shown;
        /// (d): the officer deemed the repair necessary.
        repair_deemed_necessary: Option<bool> => Json, Officer, Shown;
        /// (e): the date the Town approved the subdivision plat.
        plat_approved: Option<NaiveDate> => Json, Officer, Shown;
        /// (f): the date the building permit was approved.
        building_permit_approved: Option<NaiveDate> => Json, Officer, Shown;
        /// (i): the officer's finding that the work is "immediately necessary to protect
        /// life, property or natural resources".
        immediately_necessary: Option<bool> => Json, Officer, Shown;
        /// (j): the officer's finding that the gardening is "primarily for use by that
        /// person and his or her family".
        personal_use: Option<bool> => Json, Officer, Shown;
        /// (k): the officer's finding that the work is "in connection with an existing
        /// structure".
        existing_structure: Option<bool> => Json, Officer, Shown;
        /// (g), (h): the officer's finding that the work is only the activity named.
        activity_only: Option<bool> => Json, Officer, Shown;
    }
}
