//! Which attachments of one tool result fit what a provider takes in one
//! request: image and document counts, the many-image pixel rule, byte
//! totals. What the request carries already (earlier turns, other tool
//! results: [`Carried`]) counts toward every limit, so the result gets
//! what is left. A PDF counts as its pages where the provider counts pages
//! (one page when its count could not be read).

use crate::provider::{ManyImages, MediaClass, Profile, RequestLimits, SizeLimit};

/// An attachment the result would carry, in content order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate<'a> {
    pub media_type: &'a str,
    pub byte_length: u64,
    pub dimensions: Option<(u32, u32)>,
    /// A PDF's page count, when it could be read.
    pub pages: Option<u32>,
}

/// What a request carries besides the result being converted: its
/// attachments' counts and decoded bytes, as the caller says or as counted
/// from its history ([`Carried::add`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Carried {
    pub images: u32,
    pub documents: u32,
    /// Pages of those documents; each counts one page at least.
    pub pages: u32,
    /// Decoded bytes of all the attachments.
    pub bytes: u64,
    /// Decoded bytes of the documents among them.
    pub document_bytes: u64,
}

impl Carried {
    /// Count one attachment of the request (one of `profile`'s media
    /// types: another is not something the provider counts, it refuses it).
    pub fn add(&mut self, profile: &Profile, attachment: &Candidate) {
        match profile.attachable(attachment.media_type).map(|a| a.class) {
            Some(MediaClass::Image) => self.images = self.images.saturating_add(1),
            Some(MediaClass::Document) => {
                self.documents = self.documents.saturating_add(1);
                self.pages = self.pages.saturating_add(pages(attachment));
                self.document_bytes = self.document_bytes.saturating_add(attachment.byte_length);
            }
            Some(_) => {}
            None => return,
        }
        self.bytes = self.bytes.saturating_add(attachment.byte_length);
    }

    /// The tally a result's attachments are added to, measured as `limits`
    /// measure totals.
    fn tally(&self, limits: &RequestLimits) -> Tally {
        Tally {
            images: self.images,
            documents: self.documents,
            pages: self.pages.max(self.documents),
            total: limits.max_total.map_or(0, |l| l.measure(self.bytes)),
            documents_total: limits
                .max_documents_total
                .map_or(0, |l| l.measure(self.document_bytes)),
        }
    }

    /// What counts toward the many-image threshold of `rule`.
    fn toward(&self, rule: &ManyImages) -> u32 {
        if rule.counts_documents {
            self.images.saturating_add(self.documents)
        } else {
            self.images
        }
    }
}

/// Why an attachment does not fit the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestExcess {
    Images {
        max: u32,
    },
    Documents {
        max: u32,
    },
    ImagesAndDocuments {
        max: u32,
    },
    /// Images and document pages together would pass `max`: `count` are in
    /// the request already; this document would add its `pages` (`None`:
    /// an image, one more).
    ImagesAndPages {
        max: u32,
        count: u32,
        pages: Option<u32>,
    },
    /// Over the side limit that applies once a request has many images.
    ManyImages {
        width: u32,
        height: u32,
        max_side: u32,
        over: u32,
    },
    /// All attachments together would pass this size.
    Total {
        limit: SizeLimit,
    },
    /// All documents together would pass this size.
    DocumentsTotal {
        limit: SizeLimit,
    },
    /// At full size the images would pass the request's size `limit`: the
    /// `images` images of the result share what the other attachments
    /// leave, this one made to fit within `share` (in the limit's unit),
    /// and within the many-image side limit when `many` says so. `carried`:
    /// what the request held before the result, in the limit's unit.
    Share {
        limit: SizeLimit,
        images: u32,
        share: u64,
        many: Option<ManyImagesRule>,
        carried: u64,
    },
}

/// The many-image rule an image is held to: `max_side` past `over` images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManyImagesRule {
    pub max_side: u32,
    pub over: u32,
}

/// A share smaller than this (in the limit's unit) would leave images
/// too small to read: below it, images are held back in content order.
pub const MIN_SHARE: u64 = 128 * 1024;

/// For each candidate, `None` when it fits, else why not. Candidates are
/// taken in order while the counts and totals allow; then, when more than
/// the many-image threshold remain, the images over its side limit are held
/// back, all of them or only as many as it takes to come down to the
/// threshold, whichever keeps more images.
pub fn allot(profile: &Profile, candidates: &[Candidate]) -> Vec<Option<RequestExcess>> {
    allot_fitting(profile, candidates, false, &Carried::default())
}

/// [`allot`]; with `fit`, large images are made to fit rather than held
/// back, so they stay in the count: past the threshold, every image over
/// the side limit is marked (and then fitted to it), none is dropped; and
/// when the images would pass the request's size limit at full size, they
/// share it (see [`share_total`]) instead of the last ones being held.
/// What the request `carried` already counts toward every limit; its bytes
/// are not shared, so the result's images share what they leave.
pub fn allot_fitting(
    profile: &Profile,
    candidates: &[Candidate],
    fit: bool,
    carried: &Carried,
) -> Vec<Option<RequestExcess>> {
    let limits = &profile.request;
    let classes: Vec<Option<MediaClass>> = candidates
        .iter()
        .map(|c| profile.attachable(c.media_type).map(|a| a.class))
        .collect();
    let tallied = |counts_images_total: bool| {
        let mut tally = carried.tally(limits);
        let mut verdicts: Vec<Option<RequestExcess>> = Vec::with_capacity(candidates.len());
        for (candidate, class) in candidates.iter().zip(&classes) {
            let totals = counts_images_total || *class != Some(MediaClass::Image);
            let excess = tally.excess(limits, candidate, *class, totals);
            if excess.is_none() {
                tally.add(limits, candidate, *class, totals);
            }
            verdicts.push(excess);
        }
        (verdicts, tally)
    };
    let (mut verdicts, tally) = tallied(!fit);
    let carried_total = carried.tally(limits).total;
    apply_many_images(profile, candidates, &classes, &mut verdicts, fit, carried);
    let others = Others {
        total: tally.total,
        carried: carried_total,
    };
    if fit && !share_total(limits, candidates, &classes, &mut verdicts, others) {
        // Too many images for a share worth sending: the first ones in
        // content order stay whole, as without fitting.
        let (mut in_order, _) = tallied(true);
        apply_many_images(profile, candidates, &classes, &mut in_order, fit, carried);
        verdicts = in_order;
    }
    verdicts
}

/// The images kept so far share what the request's size limit leaves after
/// the other attachments (`others`, in the limit's unit), when at full size
/// they would pass it: each gets the same share, those smaller than it
/// keep their size and leave the rest to the others (water-filling), and
/// each image over its share is marked to be made to fit it. False when
/// that share would be under [`MIN_SHARE`]; nothing is marked then.
fn share_total(
    limits: &RequestLimits,
    candidates: &[Candidate],
    classes: &[Option<MediaClass>],
    verdicts: &mut [Option<RequestExcess>],
    others: Others,
) -> bool {
    let Some(limit) = limits.max_total else {
        return true;
    };
    let kept: Vec<usize> = (0..candidates.len())
        .filter(|&i| {
            classes[i] == Some(MediaClass::Image)
                && matches!(verdicts[i], None | Some(RequestExcess::ManyImages { .. }))
        })
        .collect();
    let room = limit.max().saturating_sub(others.total);
    let mut sizes: Vec<u64> = kept
        .iter()
        .map(|&i| limit.measure(candidates[i].byte_length))
        .collect();
    if sizes.iter().sum::<u64>() <= room {
        return true;
    }
    // The share: the largest s with the sum of min(size, s) within room.
    sizes.sort_unstable();
    let mut left = room;
    let mut share = 0;
    for (n, &size) in sizes.iter().enumerate() {
        let even = left / (sizes.len() - n) as u64;
        if size > even {
            share = even;
            break;
        }
        left -= size;
    }
    if share < MIN_SHARE {
        return false;
    }
    let images = kept.len() as u32;
    for &i in &kept {
        if limit.measure(candidates[i].byte_length) <= share {
            continue;
        }
        let many = match verdicts[i] {
            Some(RequestExcess::ManyImages { max_side, over, .. }) => {
                Some(ManyImagesRule { max_side, over })
            }
            _ => None,
        };
        verdicts[i] = Some(RequestExcess::Share {
            limit,
            images,
            share,
            many,
            carried: others.carried,
        });
    }
    true
}

/// What the images do not share, in the request limit's unit: the other
/// attachments and what the request carried, and of that the carried part.
#[derive(Clone, Copy)]
struct Others {
    total: u64,
    carried: u64,
}

struct Tally {
    images: u32,
    documents: u32,
    /// Pages of the documents kept (see `pages`).
    pages: u32,
    total: u64,
    documents_total: u64,
}

impl Tally {
    /// Why `candidate` does not fit; `totals`: whether it counts toward
    /// the size totals here (images shared later do not, see `share_total`).
    fn excess(
        &self,
        limits: &RequestLimits,
        candidate: &Candidate,
        class: Option<MediaClass>,
        totals: bool,
    ) -> Option<RequestExcess> {
        let is_image = class == Some(MediaClass::Image);
        let is_document = class == Some(MediaClass::Document);
        let full = |count: u32, max: Option<u32>| max.filter(|&max| count >= max);
        if is_image {
            if let Some(max) = full(self.images, limits.max_images) {
                return Some(RequestExcess::Images { max });
            }
        }
        if is_document {
            if let Some(max) = full(self.documents, limits.max_documents) {
                return Some(RequestExcess::Documents { max });
            }
        }
        if is_image || is_document {
            let both = self.images + self.documents;
            if let Some(max) = full(both, limits.max_images_and_documents) {
                return Some(RequestExcess::ImagesAndDocuments { max });
            }
            if let Some(max) = limits.max_images_and_pages {
                let count = self.images.saturating_add(self.pages);
                let pages = is_document.then(|| pages(candidate));
                if count.saturating_add(pages.unwrap_or(1)) > max {
                    return Some(RequestExcess::ImagesAndPages { max, count, pages });
                }
            }
        }
        if !totals {
            return None;
        }
        let passes = |sum: u64, limit: SizeLimit| {
            sum.saturating_add(limit.measure(candidate.byte_length)) > limit.max()
        };
        if let Some(limit) = limits.max_total.filter(|&l| passes(self.total, l)) {
            return Some(RequestExcess::Total { limit });
        }
        if is_document {
            let over = limits
                .max_documents_total
                .filter(|&l| passes(self.documents_total, l));
            if let Some(limit) = over {
                return Some(RequestExcess::DocumentsTotal { limit });
            }
        }
        None
    }

    fn add(
        &mut self,
        limits: &RequestLimits,
        candidate: &Candidate,
        class: Option<MediaClass>,
        totals: bool,
    ) {
        match class {
            Some(MediaClass::Image) => self.images += 1,
            Some(MediaClass::Document) => {
                self.documents += 1;
                self.pages = self.pages.saturating_add(pages(candidate));
                if let Some(limit) = limits.max_documents_total {
                    self.documents_total += limit.measure(candidate.byte_length);
                }
            }
            _ => {}
        }
        if let Some(limit) = limits.max_total.filter(|_| totals) {
            self.total += limit.measure(candidate.byte_length);
        }
    }
}

/// The pages a document counts for: one when its count could not be read,
/// as for any other document.
fn pages(candidate: &Candidate) -> u32 {
    candidate.pages.unwrap_or(1).max(1)
}

/// Anthropic's rule: past `over` images in a request, every image must be
/// within `max_side`. Either the large images go, or enough of them that
/// the count comes down to `over`; the first large images in order stay.
fn apply_many_images(
    profile: &Profile,
    candidates: &[Candidate],
    classes: &[Option<MediaClass>],
    verdicts: &mut [Option<RequestExcess>],
    fit: bool,
    carried: &Carried,
) {
    let Some(rule) = profile.request.many_images else {
        return;
    };
    let counted = |class: Option<MediaClass>| match class {
        Some(MediaClass::Image) => true,
        Some(MediaClass::Document) => rule.counts_documents,
        _ => false,
    };
    let kept: Vec<usize> = (0..candidates.len())
        .filter(|&i| verdicts[i].is_none() && counted(classes[i]))
        .collect();
    let prior = carried.toward(&rule) as usize;
    if prior + kept.len() <= rule.over as usize {
        return;
    }
    // An image of unknown size cannot be vouched for: it counts as large.
    let is_large = |i: usize| {
        classes[i] == Some(MediaClass::Image)
            && candidates[i]
                .dimensions
                .is_none_or(|(w, h)| w > rule.max_side || h > rule.max_side)
    };
    let large: Vec<usize> = kept.iter().copied().filter(|&i| is_large(i)).collect();
    let small = kept.len() - large.len();
    let room = if fit {
        0
    } else {
        (rule.over as usize).saturating_sub(small + prior)
    };
    for &i in large.iter().skip(room) {
        let (width, height) = candidates[i].dimensions.unwrap_or((0, 0));
        verdicts[i] = Some(RequestExcess::ManyImages {
            width,
            height,
            max_side: rule.max_side,
            over: rule.over,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{profile, ANTHROPIC, ANTHROPIC_BEDROCK, BEDROCK, OPENAI};

    fn png(width: u32, height: u32) -> Candidate<'static> {
        Candidate {
            media_type: "image/png",
            byte_length: 1000,
            dimensions: Some((width, height)),
            pages: None,
        }
    }

    fn pdf(byte_length: u64) -> Candidate<'static> {
        Candidate {
            media_type: "application/pdf",
            byte_length,
            dimensions: None,
            pages: None,
        }
    }

    fn pdf_of(pages: u32) -> Candidate<'static> {
        Candidate {
            pages: Some(pages),
            ..pdf(1000)
        }
    }

    fn images_before(images: u32) -> Carried {
        Carried {
            images,
            ..Carried::default()
        }
    }

    fn kept(verdicts: &[Option<RequestExcess>]) -> usize {
        verdicts.iter().filter(|v| v.is_none()).count()
    }

    #[test]
    fn images_already_in_the_request_count() {
        // Anthropic: 15 before, 6 of 2500 px now: 21 in the request, so the
        // large ones past the 20th go (one of them).
        let large: Vec<Candidate> = (0..6).map(|_| png(2500, 300)).collect();
        let verdicts = allot_fitting(&ANTHROPIC, &large, false, &images_before(15));
        assert_eq!(verdicts.iter().filter(|v| v.is_some()).count(), 1);
        assert!(matches!(
            verdicts[5],
            Some(RequestExcess::ManyImages { .. })
        ));
        assert!(allot_fitting(&ANTHROPIC, &large, false, &images_before(14))
            .iter()
            .all(Option::is_none));
        // With fitting, every large one is marked to be fitted.
        let fitted = allot_fitting(&ANTHROPIC, &large, true, &images_before(15));
        assert!(fitted.iter().all(Option::is_some));
        // Bedrock: 20 images a request; 19 before leave room for one.
        let small: Vec<Candidate> = (0..3).map(|_| png(100, 100)).collect();
        let verdicts = allot_fitting(&BEDROCK, &small, false, &images_before(19));
        assert_eq!(verdicts[0], None);
        assert_eq!(verdicts[1], Some(RequestExcess::Images { max: 20 }));
    }

    #[test]
    fn many_large_images_keep_the_first_twenty() {
        let candidates = vec![png(2500, 300); 24];
        let verdicts = allot(&ANTHROPIC, &candidates);
        assert!(verdicts[..20].iter().all(Option::is_none));
        for v in &verdicts[20..] {
            assert_eq!(
                *v,
                Some(RequestExcess::ManyImages {
                    width: 2500,
                    height: 300,
                    max_side: 2000,
                    over: 20
                })
            );
        }
        // At most 20: every size up to 8000 px goes.
        assert_eq!(kept(&allot(&ANTHROPIC, &vec![png(2500, 300); 20])), 20);
    }

    #[test]
    fn many_small_images_push_the_large_ones_out() {
        let mut candidates = vec![png(2500, 300), png(300, 2001)];
        candidates.extend(vec![png(1000, 300); 22]);
        let verdicts = allot(&ANTHROPIC, &candidates);
        assert!(matches!(
            verdicts[0],
            Some(RequestExcess::ManyImages { .. })
        ));
        assert!(matches!(
            verdicts[1],
            Some(RequestExcess::ManyImages { .. })
        ));
        assert_eq!(kept(&verdicts), 22);
        // 19 small and 3 large: the first large one fills the twentieth place.
        let mut candidates = vec![png(1000, 300); 19];
        candidates.extend(vec![png(2500, 300); 3]);
        let verdicts = allot(&ANTHROPIC, &candidates);
        assert_eq!(kept(&verdicts), 20);
        assert!(verdicts[19].is_none() && verdicts[20].is_some() && verdicts[21].is_some());
    }

    #[test]
    fn documents_count_toward_the_rule_on_partner_platforms() {
        let mut candidates = vec![pdf(1000); 15];
        candidates.extend(vec![png(2500, 300); 6]);
        // Direct API: 6 images, no rule.
        assert_eq!(kept(&allot(&ANTHROPIC, &candidates)), 21);
        // Bedrock: 21 counted, so one large image goes.
        let verdicts = allot(&ANTHROPIC_BEDROCK, &candidates);
        assert_eq!(kept(&verdicts), 20);
        assert!(verdicts[20].is_some());
    }

    #[test]
    fn counts_per_request() {
        let verdicts = allot(&ANTHROPIC, &vec![png(10, 10); 101]);
        assert_eq!(kept(&verdicts), 100);
        assert_eq!(
            verdicts[100],
            Some(RequestExcess::ImagesAndDocuments { max: 100 })
        );
        let verdicts = allot(&BEDROCK, &vec![png(10, 10); 21]);
        assert_eq!(verdicts[20], Some(RequestExcess::Images { max: 20 }));
        let verdicts = allot(&BEDROCK, &vec![pdf(1000); 6]);
        assert_eq!(verdicts[5], Some(RequestExcess::Documents { max: 5 }));
        assert_eq!(kept(&verdicts), 5);
    }

    #[test]
    fn totals_per_request() {
        // Five images at the 5 MB limit on Claude on Bedrock (20 MB a request):
        // 5,242,880 characters each, so three fit.
        let big = Candidate {
            media_type: "image/png",
            byte_length: 3_932_160,
            dimensions: Some((512, 512)),
            pages: None,
        };
        let verdicts = allot(&ANTHROPIC_BEDROCK, &[big; 5]);
        assert_eq!(kept(&verdicts), 3);
        assert_eq!(
            verdicts[3],
            Some(RequestExcess::Total {
                limit: SizeLimit::Base64Chars(20_000_000)
            })
        );
        // A smaller one after them still fits.
        let mut candidates = vec![big; 4];
        candidates.push(png(10, 10));
        assert!(allot(&ANTHROPIC_BEDROCK, &candidates)[4].is_none());
        // OpenAI: all files of a request under 50 MB together.
        let verdicts = allot(&OPENAI, &[pdf(30_000_000), pdf(20_000_001), pdf(1)]);
        assert_eq!(
            verdicts,
            [
                None,
                Some(RequestExcess::DocumentsTotal {
                    limit: SizeLimit::DecodedBytes(50_000_000)
                }),
                None
            ]
        );
    }

    #[test]
    fn images_share_the_request_size_when_fitting() {
        // 24 photos of 2.7 MB, 8000x8000, for Claude's direct API (32 MB a
        // request): all of them stay, each to be fitted to 2000 px (more
        // than 20 images) and within 32 MB / 24 of base64.
        let photo = Candidate {
            media_type: "image/png",
            byte_length: 2_700_000,
            dimensions: Some((8000, 8000)),
            pages: None,
        };
        let limit = SizeLimit::Base64Chars(32_000_000);
        let share = 32_000_000 / 24;
        let verdicts = allot_fitting(&ANTHROPIC, &[photo; 24], true, &Carried::default());
        let many = Some(ManyImagesRule {
            max_side: 2000,
            over: 20,
        });
        assert!(verdicts.iter().all(|v| *v
            == Some(RequestExcess::Share {
                limit,
                images: 24,
                share,
                many,
                carried: 0
            })));
        // Without fitting, the first ones stay whole and the rest are held.
        assert_eq!(kept(&allot(&ANTHROPIC, &[photo; 24])), 8);
        // Within 2000 px: only the size is shared; a small image keeps its
        // size and leaves the rest to the others.
        let shot = Candidate {
            dimensions: Some((1700, 1300)),
            byte_length: 6_600_000,
            ..photo
        };
        let mut candidates = vec![shot; 23];
        candidates.push(png(10, 10));
        let verdicts = allot_fitting(&ANTHROPIC, &candidates, true, &Carried::default());
        let small = limit.measure(1000);
        assert_eq!(verdicts[23], None);
        assert_eq!(
            verdicts[0],
            Some(RequestExcess::Share {
                limit,
                images: 24,
                share: (32_000_000 - small) / 23,
                many: None,
                carried: 0
            })
        );
        // A PDF takes its bytes first; the images share what it leaves.
        let mut candidates = vec![pdf(3_000_000)];
        candidates.extend([shot; 4]);
        let verdicts = allot_fitting(&ANTHROPIC, &candidates, true, &Carried::default());
        assert_eq!(verdicts[0], None);
        assert!(matches!(
            verdicts[1],
            Some(RequestExcess::Share { images: 4, .. })
        ));
        // Images that fit at full size are left as they are.
        assert_eq!(
            kept(&allot_fitting(
                &ANTHROPIC,
                &[shot; 3],
                true,
                &Carried::default()
            )),
            3
        );
    }

    #[test]
    fn a_share_too_small_to_read_holds_images_in_order() {
        // 100 images of 1 MB under a request limit of 10 MB: a share of
        // 100 KB would be too small; the first ones stay whole, as without
        // fitting.
        let small_requests = Profile {
            request: RequestLimits {
                max_total: Some(SizeLimit::DecodedBytes(10_000_000)),
                ..ANTHROPIC.request
            },
            ..ANTHROPIC
        };
        let image = Candidate {
            media_type: "image/png",
            byte_length: 1_000_000,
            dimensions: Some((1000, 1000)),
            pages: None,
        };
        let verdicts = allot_fitting(&small_requests, &[image; 100], true, &Carried::default());
        assert_eq!(kept(&verdicts), 10);
        assert!(verdicts
            .iter()
            .all(|v| !matches!(v, Some(RequestExcess::Share { .. }))));
    }

    #[test]
    fn pdf_pages_count_with_images_per_request() {
        // Claude: 100 images and PDF pages in all. Two PDFs of 60 pages:
        // the second would make 120.
        let verdicts = allot(&ANTHROPIC, &[pdf_of(60), pdf_of(60), pdf_of(40)]);
        assert_eq!(
            verdicts,
            [
                None,
                Some(RequestExcess::ImagesAndPages {
                    max: 100,
                    count: 60,
                    pages: Some(60)
                }),
                None
            ]
        );
        // 95 pages, then images: five fit, the sixth would make 101.
        let mut candidates = vec![pdf_of(95)];
        candidates.extend(vec![png(10, 10); 6]);
        let verdicts = allot(&ANTHROPIC, &candidates);
        assert_eq!(kept(&verdicts), 6);
        assert_eq!(
            verdicts[6],
            Some(RequestExcess::ImagesAndPages {
                max: 100,
                count: 100,
                pages: None
            })
        );
        // Images already in the request count; a PDF of unknown length counts one page.
        let verdicts = allot_fitting(
            &ANTHROPIC,
            &[pdf_of(90), pdf(1000)],
            false,
            &images_before(10),
        );
        assert_eq!(verdicts[0], None);
        assert!(verdicts[1].is_some());
        assert_eq!(
            allot_fitting(&ANTHROPIC, &[pdf(1000)], false, &images_before(99)),
            [None]
        );
        // OpenAI counts no pages.
        assert_eq!(kept(&allot(&OPENAI, &[pdf_of(600), pdf_of(600)])), 2);
    }

    #[test]
    fn what_the_request_carries_counts_toward_every_limit() {
        // Bedrock: 5 documents before leave no room for a sixth, 20
        // images and documents none for an image.
        let carried = Carried {
            documents: 5,
            ..Carried::default()
        };
        assert_eq!(
            allot_fitting(&BEDROCK, &[pdf(1000), png(10, 10)], false, &carried),
            [Some(RequestExcess::Documents { max: 5 }), None]
        );
        let carried = Carried {
            images: 15,
            documents: 5,
            ..Carried::default()
        };
        assert_eq!(
            allot_fitting(&BEDROCK, &[png(10, 10)], false, &carried),
            [Some(RequestExcess::ImagesAndDocuments { max: 20 })]
        );
        // Claude: 8 PDFs of 96 pages in all, so one of 12 pages would make 108.
        let carried = Carried {
            documents: 8,
            pages: 96,
            ..Carried::default()
        };
        assert_eq!(
            allot_fitting(&ANTHROPIC, &[pdf_of(12), pdf_of(4)], false, &carried),
            [
                Some(RequestExcess::ImagesAndPages {
                    max: 100,
                    count: 96,
                    pages: Some(12)
                }),
                None
            ]
        );
        // Documents whose pages were not said count one page each.
        let carried = Carried {
            documents: 100,
            ..Carried::default()
        };
        assert!(allot_fitting(&ANTHROPIC, &[png(10, 10)], false, &carried)[0].is_some());
        // The bytes carried: a 4 MB PDF does not fit beside 29 MB of
        // base64 under Claude's 32 MB; a small one does.
        let carried = Carried {
            images: 0,
            documents: 1,
            pages: 1,
            bytes: 21_750_000,
            document_bytes: 21_750_000,
        };
        assert_eq!(
            allot_fitting(&ANTHROPIC, &[pdf(3_000_000), pdf(1000)], true, &carried),
            [
                Some(RequestExcess::Total {
                    limit: SizeLimit::Base64Chars(32_000_000)
                }),
                None
            ]
        );
        // OpenAI: the documents' bytes carried count toward its 50 MB of files.
        let carried = Carried {
            documents: 1,
            bytes: 49_000_000,
            document_bytes: 49_000_000,
            ..Carried::default()
        };
        assert_eq!(
            allot_fitting(&OPENAI, &[pdf(2_000_000)], false, &carried),
            [Some(RequestExcess::DocumentsTotal {
                limit: SizeLimit::DecodedBytes(50_000_000)
            })]
        );
    }

    #[test]
    fn images_share_what_the_request_carried_leaves() {
        // 24 MB of base64 carried: a 6.6 MB screenshot is made to fit the
        // 8 MB left rather than saved.
        let limit = SizeLimit::Base64Chars(32_000_000);
        let shot = Candidate {
            media_type: "image/png",
            byte_length: 6_600_000,
            dimensions: Some((1700, 1300)),
            pages: None,
        };
        let carried = Carried {
            images: 10,
            bytes: 18_000_000,
            ..Carried::default()
        };
        assert_eq!(
            allot_fitting(&ANTHROPIC, &[shot], true, &carried),
            [Some(RequestExcess::Share {
                limit,
                images: 1,
                share: 32_000_000 - limit.measure(18_000_000),
                many: None,
                carried: limit.measure(18_000_000)
            })]
        );
        // Without fitting it is held; with under 128 KiB left, it is held too.
        assert_eq!(
            allot_fitting(&ANTHROPIC, &[shot], false, &carried),
            [Some(RequestExcess::Total { limit })]
        );
        let full = Carried {
            bytes: 23_950_000,
            ..carried
        };
        assert_eq!(
            allot_fitting(&ANTHROPIC, &[shot], true, &full),
            [Some(RequestExcess::Total { limit })]
        );
        // Past 20 images with those carried, the share keeps the side rule.
        let carried = Carried {
            images: 20,
            bytes: 18_000_000,
            ..Carried::default()
        };
        let large = Candidate {
            dimensions: Some((2500, 1600)),
            ..shot
        };
        assert!(matches!(
            allot_fitting(&ANTHROPIC, &[large], true, &carried)[0],
            Some(RequestExcess::Share { many: Some(_), .. })
        ));
    }

    #[test]
    fn documents_carried_count_toward_the_rule_on_partner_platforms() {
        let carried = Carried {
            documents: 15,
            ..Carried::default()
        };
        let large = vec![png(2500, 300); 6];
        assert_eq!(kept(&allot_fitting(&ANTHROPIC, &large, false, &carried)), 6);
        assert_eq!(
            kept(&allot_fitting(&ANTHROPIC_BEDROCK, &large, false, &carried)),
            5
        );
    }

    #[test]
    fn an_attachment_counted_by_its_class() {
        let mut carried = Carried::default();
        carried.add(&ANTHROPIC, &png(10, 10));
        carried.add(&ANTHROPIC, &pdf_of(7));
        carried.add(&ANTHROPIC, &pdf(500));
        // Not Claude's: the provider refuses it rather than counting it.
        carried.add(
            &ANTHROPIC,
            &Candidate {
                media_type: "audio/wav",
                ..pdf(1000)
            },
        );
        assert_eq!(
            carried,
            Carried {
                images: 1,
                documents: 2,
                pages: 8,
                bytes: 2500,
                document_bytes: 1500,
            }
        );
    }

    #[test]
    fn profiles_without_request_limits_keep_everything() {
        let google = profile(Some("google")).unwrap();
        assert_eq!(kept(&allot(google, &vec![png(9000, 9000); 30])), 30);
    }
}
