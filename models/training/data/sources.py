# Data v1: the public repositories the detector's training set is gathered from, with each one's licence, class,
# selection rule, generator or device labelling and split. build_manifests.py turns this into the per-source TSVs.
import re

# Sources of ../shared/datasets/modern/ (its MANIFEST.tsv) and copies of them: never gathered, trained on or
# evaluated on here, so that modern/ stays a set of generators the model has not seen.
FORBIDDEN_REPOS = {
    'nood-co1/poidh-local-ai-image-detector', 'jamez-bondos/awesome-gpt4o-images', 'alicevision/dataset_monstree',
    'tigranbs/test-heic-images', 'jashan-web/awesome-gpt4o-images', 'bGl5b25nanVu/awesome-gpt4o-images',
    'fanko1217/awesome-gpt4o-images', 'highscore-ai/imageprompter', 'zhouwei713/awesome-seedance-4.0',
    'JimmyLv/awesome-nano-banana',
    # modern/ MANIFEST.tsv sources
    'comfyanonymous/ComfyUI_examples', 'black-forest-labs/flux', 'HiDream-ai/HiDream-I1', 'Tencent/HunyuanDiT',
    'PixArt-alpha/PixArt-alpha', 'PixArt-alpha/PixArt-sigma', 'Stability-AI/generative-models',
    'Stability-AI/StableCascade', 'photoprism/photoprism',
    # found during the search: copies of jamez-bondos' galleries (its CC BY 4.0 notice, its case and file names)
    'dracohu2025-cloud/awesome-nano-banana', 'wowmarcomei/awesome-gpt-images',
    # holds 99 blobs of jamez-bondos/awesome-gpt4o-images (= modern/gptimage_cases) and 97 more re-encoded copies of
    # them (first build, 2026-11-23): a copy of a forbidden source, so all of it is left out
    'samuxbuilds/awesome-prompts',
    # its public/example_*.jpeg are jamez-bondos' gallery files by name
    'z23cc/gpt4o-image-prompt',
}

IMG = r'\.(jpe?g|png|webp)$'


def _songguoxs_models(read_text, paths):
    """Per-image model from the gallery's markdown: '## 案例 N ... 模型：X' headers, then the case's <img> tags."""
    out = {}
    for md in [p for p in paths if p.endswith('.md')]:
        model = None
        for line in read_text(md).splitlines():
            if line.startswith('## '):
                m = re.search(r'模型[：:]\s*([^<(（]+)', line)
                model = m.group(1).strip() if m else 'GPT-4o (untagged case of the GPT-4o era)'
                if len(model) > 40:  # a sentence, not a model name
                    model = 'untagged'
            for src in re.findall(r'src="\./?([^"]+)"', line):
                if model and src not in out:
                    out[src] = model
    return out


MIRROR_ROOT = '/work/.mirror'  # set by build_manifests.py


def _haidra_styles():
    import subprocess
    gd = MIRROR_ROOT + '/Haidra-Org+AI-Horde-Styles/repo'
    return subprocess.run(['git', '--git-dir', gd, 'show', 'HEAD:styles.json'], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=False).stdout.decode('utf-8', 'replace')


def _horde_models(read_text, paths):
    """AI-Horde style previews are named <style>_<subject>.webp; styles.json (the source's own at that commit, else
    Haidra-Org/AI-Horde-Styles at HEAD, which the preview forks render) names each style's model."""
    import json
    try:
        styles = json.loads(read_text('styles.json'))
    except Exception:  # noqa: BLE001 - no parseable styles.json at that commit: use Haidra's
        try:
            styles = json.loads(_haidra_styles())
        except Exception:  # noqa: BLE001
            return {}
    norm = {re.sub(r'[^a-z0-9]+', '_', k.lower()).strip('_'): v.get('model', '?') for k, v in styles.items()
            if isinstance(v, dict)}
    out = {}
    for p in paths:
        m = re.match(r'(?:preview_generator/)?images/(.+)_([a-z]+)\.webp$', p)
        if m:
            out[p] = norm.get(m.group(1).lower().strip('_'), 'AI Horde (style not in styles.json; model unknown)')
    return out


def _aiimagegen_models(read_text, paths):
    """img/<job>-<x>-<run>.jpg: the README's table at that commit maps x to the model."""
    table = {}
    for line in read_text('README.md').splitlines():
        m = re.match(r'\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|', line)
        if m:
            table[m.group(1)] = m.group(2)
    out = {}
    for p in paths:
        m = re.match(r'img/(?:old/)?\d+-(\d+)-\d+\.(jpe?g|png)$', p)
        if m:
            out[p] = table.get(m.group(1), '?')
    return out


def _ideogram_models(read_text, paths):
    return {p: ('mixed: Ideogram 4.0 vs ImagineArt, Krea, Recraft, Grok, Flux2-Pro, NanoBanana 2, GPT-Image-2, '
                'Midjourney (comparison)' if '/comparison_case' in p else 'Ideogram 4.0') for p in paths}


# class, licence, include / exclude regex on the path, generator (fixed text, or 'exif' for camera make/model),
# per-commit labeller, whether to take blobs from the whole history (distinct earlier versions), notes, split.
SOURCES = [
    # ---------------- AI ----------------
    dict(name='songguoxs__gpt4o-image-prompts', repo='songguoxs/gpt4o-image-prompts', cls='ai',
         licence='none stated (images reposted from X posts; research use)', include=r'^images/\d+[^/]*' + IMG,
         generator='GPT-4o / Nano Banana Pro / Grok (per case)', labeller=_songguoxs_models, history=False,
         how='social-site re-encode (images saved from X, mostly JPEG)', split='train',
         trust='each case names its X post; the markdown names the model per case (Nano Banana Pro, Grok; untagged '
               'cases are from the GPT-4o gallery era); prompt galleries post outputs'),
    dict(name='lesonky__gpt4o-image-prompts', repo='lesonky/gpt4o-image-prompts', cls='ai',
         licence='none stated (fork of songguoxs/gpt4o-image-prompts, 2025-04)', include=r'^images/\d+[^/]*' + IMG,
         generator='GPT-4o / Nano Banana (per case)', labeller=_songguoxs_models, history=False,
         how='as songguoxs (an older snapshot of the same gallery)', split='train',
         trust='a fork of songguoxs; only what dedup against songguoxs leaves is counted'),
    dict(name='amiantos__AI-Horde-Styles', repo='amiantos/AI-Horde-Styles', cls='ai', licence='CC0 1.0',
         include=r'^preview_generator/images/[^/]+\.webp$', generator='AI Horde model of the style (styles.json)',
         labeller=_horde_models, history=True, how='lossy WebP previews written by the preview generator',
         split='train',
         trust='previews generated by the repo\'s own preview_generator on the AI Horde with each style\'s model '
               '(SDXL, AlbedoBase XL, Flux, SD 1.5 checkpoints ...)'),
    dict(name='Efreak__AI-Horde-Styles-Previews', repo='Efreak/AI-Horde-Styles-Previews', cls='ai',
         licence='MIT (preview generator by Brad Root / amiantos)', include=r'^images/[^/]+\.webp$',
         generator='AI Horde model of the style (Haidra styles.json)', labeller=_horde_models, history=True,
         how='lossy WebP previews written by the preview generator', split='train',
         trust='fork of amiantos/AI-Horde-Styles-Previews: previews rendered on the AI Horde per style'),
    dict(name='xuyiqing88__ComfyUI-SDXL-Style-Preview', repo='xuyiqing88/ComfyUI-SDXL-Style-Preview', cls='ai',
         licence='no licence file; README: previews generated by the author with SDXL, "no copyright dispute"',
         include=r'^style-preview/[^/]+\.(png|jpe?g|webp)$', generator='SDXL 1.0 (style previews)', history=True,
         how='PNG/JPEG previews (many deleted at HEAD, kept in history)', split='val',
         trust='README: "All preview images in this project were generated using sdxl 1.0"'),
    dict(name='EnragedAntelope__Artists-SD35L', repo='EnragedAntelope/Artists-SD35L', cls='ai', licence='MIT',
         include=r'^gallery-assets/[^/]+\.(png|jpe?g|webp)$', generator='Stable Diffusion 3.5 Large', history=True,
         how='PNG (as generated in ComfyUI, or re-saved)', split='val',
         trust='README: all images generated with Stable Diffusion 3.5 Large, one per artist'),
    dict(name='EnragedAntelope__Styles-SD35L', repo='EnragedAntelope/Styles-SD35L', cls='ai', licence='MIT',
         include=r'^gallery-assets/[^/]+\.(png|jpe?g|webp)$', generator='Stable Diffusion 3.5 Large', history=True,
         how='PNG (as generated in ComfyUI, or re-saved)', split='val',
         trust='README: all images generated with Stable Diffusion 3.5 Large, one per style'),
    dict(name='javsezlol1__Stylez', repo='javsezlol1/Stylez', cls='ai',
         licence='no licence file', include=r'^styles/(Artists|Styles)/[^/]+\.(png|jpe?g|webp)$',
         generator='Stable Diffusion (A1111 style-library previews; checkpoint not stated)', history=False,
         how='small JPEG thumbnails', split='train',
         trust='preview images of an A1111 style library, rendered with each style\'s prompt'),
    dict(name='EvoLinkAI__awesome-ideogram-4.0-prompts', repo='EvoLinkAI/awesome-ideogram-4.0-prompts', cls='ai',
         licence='CC BY 4.0', include=r'^images/[^/]+/output[^/]*' + IMG, generator='Ideogram 4.0',
         labeller=_ideogram_models, history=False, how='JPEG outputs as posted', split='val',
         trust='prompt guide: each case shows its outputs; comparison cases are other generators\' outputs'),
    dict(name='EvoLinkAI__awesome-gpt-image-2-prompts', repo='EvoLinkAI/awesome-gpt-image-2-prompts', cls='ai',
         licence='CC0 1.0', include=r'^images/[^/]+/output[^/]*' + IMG, generator='GPT-Image-2',
         labeller=lambda read, paths: {p: 'mixed: GPT-Image-2 and other generators (comparison)'
                                       if '/comparison_case' in p else 'GPT-Image-2' for p in paths},
         history=False, how='JPEG outputs as posted', split='train',
         trust='prompt gallery: each case shows its GPT-Image-2 output(s); comparison cases hold other generators\' '
               'outputs too (all AI)'),
    dict(name='EvoLinkAI__gpt-image-2-for-e-commerce', repo='EvoLinkAI/gpt-image-2-for-e-commerce', cls='ai',
         licence='CC BY 4.0', include=r'/output[^/]*' + IMG, generator='GPT-Image-2', history=False,
         how='PNG/JPEG outputs as posted; inputs (product photos) excluded', split='train',
         trust='e-commerce cases: input product photos and GPT-Image-2 outputs are named apart (output-*)'),
    dict(name='Evolink-AI__GPT-Image-2-Seedance2-Workflow', repo='Evolink-AI/GPT-Image-2-Seedance2-Workflow',
         cls='ai', licence='Apache-2.0', include=r'^images/[^/]+_case\d+/output[^/]*' + IMG,
         generator='GPT-Image-2', history=False, how='JPEG as posted; inputs excluded', split='train',
         trust='workflow guide: case outputs named output*, inputs named input*; images/showcase/ left out (a look '
               'showed app and web-page screenshots among the community results)'),
    dict(name='AI-Image-Gen__generator-testing', repo='AI-Image-Gen/generator-testing', cls='ai', licence='GPL-3.0',
         include=r'^img/(old/)?\d+-\d+-\d+\.(jpe?g|png)$', generator='per README table (SDXL-Turbo, SDXL, SD 2.1, '
         'SD 1.5)', labeller=_aiimagegen_models, history=True, how='JPEG written by the generation job',
         split='train', trust='images written by a scheduled GitHub job; the file name carries the model number'),
    dict(name='jcraigk__blog', repo='jcraigk/blog', cls='ai', licence='no licence file (personal blog; all rights '
         'reserved by the author)', include=r'^assets/images/posts/2023-0(8-18|9-14)/midjourney-\d+\.(jpe?g|png)$',
         generator='Midjourney (v5 era, 2023)', history=False, how='JPEG re-saved for the blog', split='val',
         trust='two "Midjourneying" posts: every picture is captioned with the Midjourney prompt that made it'),
    dict(name='lllyasviel__Fooocus', repo='lllyasviel/Fooocus', cls='ai', licence='GPL-3.0 (repo); samples made '
         'with SDXL checkpoints (CreativeML Open RAIL++-M)', include=r'^sdxl_styles/samples/[^/]+\.(jpe?g|png|webp)$',
         generator='SDXL (Fooocus default checkpoint, style samples)', history=True,
         how='JPEG style samples (earlier versions in history)', split='train',
         trust='Fooocus generates its style samples with its SDXL pipeline; one per style'),
    dict(name='PicoTrex__Awesome-Nano-Banana-images', repo='PicoTrex/Awesome-Nano-Banana-images', cls='ai',
         licence='Apache-2.0', include=r'^images/(pro_)?case\d+/output[^/]*' + IMG,
         generator='Nano Banana (case*) / Nano Banana Pro (pro_case*)', history=True,
         how='outputs as posted (PNG/JPEG); inputs excluded', split='train',
         trust='only files named output*; input* files (often real photos) are excluded'),
    dict(name='ruifengzhaomail__Awesome-Nano-Banana-Guides-and-Images',
         repo='ruifengzhaomail/Awesome-Nano-Banana-Guides-and-Images', cls='ai',
         licence='Apache-2.0 (copy of PicoTrex)',
         include=r'^(docs/)?images/(pro_)?case\d+/output[^/]*' + IMG, generator='Nano Banana (copy of PicoTrex)',
         history=True, how='as PicoTrex', split='train',
         trust='a copy of PicoTrex; only what dedup leaves is counted'),
    dict(name='ZizheRuan__awesome-nano-banana-pro-images', repo='ZizheRuan/awesome-nano-banana-pro-images', cls='ai',
         licence='Apache-2.0', include=r'^images/[^/]*_o' + IMG, generator='Nano Banana Pro', history=True,
         how='outputs (*_o); inputs (*_i) excluded', split='val',
         trust='file naming pairs input _i and output _o; only outputs kept'),
    dict(name='Evolink-AI__awesome-seedream-5-pro-guide-and-prompt',
         repo='Evolink-AI/awesome-seedream-5-pro-guide-and-prompt', cls='ai', licence='CC BY 4.0',
         include=r'^assets/media/\d+-[^/]+' + IMG, exclude=r'performance',
         generator='Seedream 5 Pro', history=False, how='PNG/JPEG as posted', split='val',
         trust='guide examples generated with Seedream 5 Pro; the benchmark chart (performance) is excluded'),
    dict(name='imaginevid-ai__Awesome-seedream-5-pro-prompts-and-skills',
         repo='imaginevid-ai/Awesome-seedream-5-pro-prompts-and-skills', cls='ai', licence='CC BY 4.0',
         include=r'^public/official-cases/[^/]+' + IMG, generator='Seedream 5 Pro (official cases)', history=False,
         how='as posted', split='val', trust='official Seedream case images reposted by the guide'),
    # ---------------- real ----------------
    dict(name='drewnoakes__digicam_corpus', repo='drewnoakes/digicam_corpus', cls='real', licence='CC0 1.0',
         include=r'\.jpe?g$', generator='exif', device_from_path=True, history=False,
         how='camera / phone original JPEG (straight from the '
         'device)', split='train', trust='a corpus of unmodified camera files, one folder per make/model'),
    dict(name='drewnoakes__metadata-extractor-images', repo='drewnoakes/metadata-extractor-images', cls='real',
         licence='"free to use these media files however you wish" (README)', include=r'^jpg/[^/]+\.jpe?g$',
         generator='exif', history=False, how='camera originals contributed to metadata-extractor (some edited by '
         'software; EXIF Software says so)', split='val',
         trust='contributors were asked for files straight from the camera; jpg/ImageTestSuite (odd test files) '
               'excluded'),
    dict(name='ianare__exif-samples', repo='ianare/exif-samples', cls='real', licence='CC BY-SA 4.0 (README)',
         include=r'^jpg/(?!invalid/|tests/)[^ ]*\.jpe?g$', generator='exif', history=False,
         how='camera originals and a few edited files', split='val', trust='EXIF sample collection of camera files'),
    dict(name='Tech4Tracing__CartridgeOCR', repo='Tech4Tracing/CartridgeOCR', cls='real', licence='MIT',
         include=r'^imagesForTesting/.+\.jpe?g$', generator='exif', history=False,
         how='phone / compact-camera originals (iPhone 11, Pixel 5, Canon SX620 HS)', split='train',
         trust='test photos of ammunition cartridges taken on the named devices for an OCR project (EXIF kept)'),
    dict(name='EliSchwartz__imagenet-sample-images', repo='EliSchwartz/imagenet-sample-images', cls='real',
         licence='ImageNet terms (non-commercial research)', include=r'\.JPEG$', generator='web photo (ImageNet)',
         history=False, how='ordinary web photos, re-encoded JPEG', split='train',
         trust='one ImageNet validation/train image per class; ImageNet predates modern generators'),
    dict(name='google__dreambooth', repo='google/dreambooth', cls='real', licence='CC BY 4.0',
         include=r'^dataset/[^/]+/[^/]+\.jpe?g$', generator='web / author photo (Unsplash)', history=False,
         how='JPEG photos, resized by the authors', split='val', trust='subject photos of the DreamBooth dataset'),
    dict(name='alexeygrigorev__clothing-dataset-small', repo='alexeygrigorev/clothing-dataset-small', cls='real',
         licence='CC0 1.0', include=r'^(train|validation|test)/[^/]+/[^/]+\.jpe?g$',
         generator='phone / camera photo (crowd-sourced, resized)', history=False,
         how='phone photos of clothes, resized and re-encoded JPEG', split='train',
         trust='photos taken by contributors for the clothing dataset (2020); no generator involved'),
]
