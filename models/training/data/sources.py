# Data 2.1 (Data v1 plus the sources after the 'Data 2.0' and 'Data 2.1' markers below): the public repositories
# the detector's
# training set is gathered from, with each one's licence, class,
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
    # Data 2.0 search (2026-11-24): its README says it re-runs jamez-bondos' 100 cases; its gpt4o.png files are that
    # gallery's images, so the whole repo is left out (never gathered)
    'yangliu2060/awesome-imagen-vs-gpt4o',
    # Data 2.1 search (2026-11-27): a copy of jamez-bondos' gallery (its commits are JamezBondos'); only its file list
    # was read, nothing of it is used
    'xianyu110/awesome-nano-banana',
    # Data 2.6 search (2026-11-28): git submodules that include JimmyLv/awesome-nano-banana; only its top-level tree
    # was listed, nothing of it was opened
    'abdshomad/awesome-nano-banana-index',
    # withdrawn in the twenty-seventh session (2026-11-30): its history begins with jamez-bondos' own commits
    # (JamezBondos, 2025-04-13, "first commit"): a fork of awesome-gpt4o-images whose cases were later replaced by Nano
    # Banana Pro ones. It was a validation source from Data 2.0 to 1.6.0 (40 files in val_raw / val_tx, 10 in valtilt;
    # never trained on); 1.6.1's fusion and thresholds are fitted without it (semantic/withdraw.py)
    'muset-ai/awesome-nano-banana-pro',
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

# ======================================= Data 2.0 (added 2026-11-24) =======================================
# New sources only; Data v1's above are unchanged (same split, same selection). They come after Data v1's in this
# list, so a duplicate of a Data v1 file is dropped from the new source, never from the old one.
# require_camera: keep only files whose EXIF names a camera make or model (test-fixture folders of EXIF / image
# libraries also hold synthetic and edited files). HEIC/HEIF files are read through libheif (imgmeta.describe_heif).
CAM = r'\.(jpe?g|heic|heif)$'


SOURCES += [
    # ---------------- AI ----------------
    dict(name='Kwai-Kolors__Kolors', repo='Kwai-Kolors/Kolors', cls='ai', licence='Apache-2.0',
         include=r'(_kolors[^/]*|_sdxl[^/]*|_mj_cw_result|_result)\.(png|jpe?g)$|^controlnet/outputs/(Canny|Depth|Pose)'
                 r'_[^/]+\.jpg$|^imgs/zl8\.png$', exclude=r'_condition\.|_masked\.|_mask\.',
         generator='Kolors (SDXL and Midjourney comparison outputs named *_sdxl / *_mj_*)',
         labeller=lambda read, paths: {p: ('Midjourney (comparison)' if '_mj_' in p else 'SDXL (comparison)'
                                           if '_sdxl' in p else 'Kolors') for p in paths},
         history=True, how='PNG/JPEG outputs in the model README; reference inputs, masks and conditions excluded',
         split='train',
         trust='model repo: the files named *_kolors*, *_result, controlnet/outputs/<mode>_* are model outputs; '
               'inputs (1.png, woman_1.png ...), masks and condition maps are excluded by name'),
    dict(name='XLabs-AI__x-flux', repo='XLabs-AI/x-flux', cls='ai', licence='Apache-2.0',
         include=r'^assets/readme/examples/(result_\d+|picture-\d+-rev1|furry\d+|(canny|depth|hed)_result\d+)\.png$',
         generator='FLUX.1-dev (+ XLabs LoRA / ControlNet)', history=True,
         how='PNG outputs as shown in the README; control inputs (*_example_*) excluded', split='train',
         trust='README examples of XLabs\' FLUX.1-dev LoRAs and ControlNets: result/picture/furry files are '
               'generations; the control inputs are named *_example_* and excluded'),
    dict(name='openai__dalle-2-preview', repo='openai/dalle-2-preview', cls='ai',
         licence='no licence file (OpenAI system card assets)', include=r'^assets/(Model\d_|0401_)[^/]+\.(png|jpe?g)$',
         generator='DALL-E 2 (preview system card)', history=True, how='PNG grids / JPEG as published', split='train',
         trust='OpenAI\'s DALL-E 2 preview system card: the assets are sample generations for the named prompts'),
    dict(name='Tencent-Hunyuan__HunyuanImage-3.0', repo='Tencent-Hunyuan/HunyuanImage-3.0', cls='ai',
         licence='Tencent Hunyuan Community Licence', include=r'^assets/(pg_imgs/image\d+|banner)\.png$',
         generator='HunyuanImage 3.0', history=True, how='PNG showcase images', split='train',
         trust='model README showcase (assets/pg_imgs: prompt-guide outputs; banner: a collage of outputs)'),
    dict(name='Tencent-Hunyuan__HunyuanImage-2.1', repo='Tencent-Hunyuan/HunyuanImage-2.1', cls='ai',
         licence='Tencent Hunyuan Community Licence',
         include=r'^assets/(show_cases|more_cases|demo_case\d+)\.(png|jpe?g)$',
         generator='HunyuanImage 2.1', history=True, how='PNG / JPEG showcase collages', split='train',
         trust='model README showcase collages of HunyuanImage 2.1 outputs'),
    dict(name='deep-floyd__IF', repo='deep-floyd/IF', cls='ai', licence='DeepFloyd IF licence (repo: modified MIT)',
         include=r'^pics/(dream-I+|main|nabla)\.jpg$', generator='DeepFloyd IF', history=True,
         how='JPEG showcase images', split='train',
         trust='README showcase of IF generations (dream stages I-III, main collage); schemes, inpainting and '
               'style-transfer figures (which hold inputs) excluded'),
    dict(name='THUDM__CogView4', repo='THUDM/CogView4', cls='ai', licence='Apache-2.0',
         include=r'^(resources/(img|showcase|CogView3_showcase)\.png|inference/img/img_\d+\.png)$',
         generator='CogView4 / CogView3', history=True, how='PNG showcase images', split='train',
         trust='model README showcase images and inference examples'),
    dict(name='QwenLM__Qwen-Image', repo='QwenLM/Qwen-Image', cls='ai', licence='Apache-2.0',
         include=r'^assets/(readme_en|readme_cn|magicbeauty)\.png$', generator='Qwen-Image', history=True,
         how='PNG showcase collages', split='train', trust='model README showcase of Qwen-Image outputs'),
    dict(name='Alpha-VLLM__Lumina-T2X', repo='Alpha-VLLM/Lumina-T2X', cls='ai', licence='MIT',
         include=r'^assets/images/(demo_image\.png|resolution_extrapolation_\d\.jpg)$', generator='Lumina-Next',
         history=True, how='PNG / JPEG showcase', split='train', trust='model README demo images'),
    # ---------------- real ----------------
    dict(name='MikeKovarik__exifr', repo='MikeKovarik/exifr', cls='real', licence='MIT (repo)',
         include=r'^test/fixtures/[^/]+' + CAM, generator='exif', require_camera=True, history=False,
         how='camera and phone originals incl. HEIC (iPhone), test fixtures of an EXIF parser', split='val',
         trust='EXIF-parser fixtures: only files whose EXIF names a camera are kept (phones: iPhone HEIC/JPEG ...)'),
    dict(name='immich-app__test-assets', repo='immich-app/test-assets', cls='real', licence='AGPL-3.0 (repo)',
         include=CAM, generator='exif', require_camera=True, history=False,
         how='phone and camera originals (JPEG, HEIC, Pixel motion photos) of a photo-app test corpus', split='val',
         trust='immich (self-hosted photo library) test assets; only files with camera EXIF kept'),
    dict(name='Exiv2__exiv2', repo='Exiv2/exiv2', cls='real', licence='GPL-2.0 (repo)',
         include=r'^test/data/[^/]+' + CAM, generator='exif', require_camera=True, history=False,
         how='camera originals from the metadata library\'s test data (some with edited metadata)', split='train',
         trust='Exiv2 test data: camera files of many makers; only files with camera EXIF kept'),
    dict(name='lovell__sharp', repo='lovell/sharp', cls='real', licence='Apache-2.0 (repo); fixtures from Flickr '
         'and contributors', include=r'^test/fixtures/.+' + CAM, generator='exif', require_camera=True,
         history=False, how='camera originals among an image library\'s fixtures', split='train',
         trust='only fixtures whose EXIF names a camera are kept'),
    dict(name='bpatrik__pigallery2', repo='bpatrik/pigallery2', cls='real', licence='MIT (repo)',
         include=r'^(demo/images|test/backend/assets)/.+' + CAM, generator='exif', require_camera=True,
         history=False, how='photo-gallery demo and test photos (camera originals, some resized)', split='train',
         trust='photo-gallery app demo/test photos; only files with camera EXIF kept'),
    dict(name='thumbor__thumbor', repo='thumbor/thumbor', cls='real', licence='MIT (repo)', include=CAM,
         generator='exif', require_camera=True, history=False, how='camera photos among image-server fixtures',
         split='train', trust='only fixtures whose EXIF names a camera are kept'),
    dict(name='SDWebImage__SDWebImage', repo='SDWebImage/SDWebImage', cls='real', licence='MIT (repo)',
         include=r'^Tests/.+' + CAM, generator='exif', require_camera=True, history=False,
         how='test images (HEIC / JPEG) with camera EXIF', split='train',
         trust='image-loading library test images; only files with camera EXIF kept'),
    dict(name='saimn__sigal', repo='saimn/sigal', cls='real', licence='MIT (repo); sample photos per their '
         'folders\' notes', include=r'^tests/sample/.+' + CAM, generator='exif', require_camera=True,
         history=False, how='sample gallery photos (camera originals, some resized)', split='train',
         trust='static photo-gallery generator sample album; only files with camera EXIF kept'),
    dict(name='mapillary__OpenSfM', repo='mapillary/OpenSfM', cls='real', licence='BSD-2-Clause (repo)',
         include=r'^data/(berlin|lund)/images/[^/]+\.jpe?g$', generator='exif', history=False,
         how='street / building photo sequences (full resolution)', split='train',
         trust='structure-from-motion sample datasets photographed for OpenSfM (Berlin, Lund)'),
    dict(name='openMVG__ImageDataset_SceauxCastle', repo='openMVG/ImageDataset_SceauxCastle', cls='real',
         licence='no licence file (openMVG sample dataset, 2013)', include=r'^images/[^/]+\.jpe?g$',
         generator='exif', history=False, how='camera originals (full resolution)', split='train',
         trust='photogrammetry sample dataset photographed by openMVG\'s author (2013)'),
    dict(name='magicleap__SuperGluePretrainedNetwork', repo='magicleap/SuperGluePretrainedNetwork', cls='real',
         licence='SuperGlue academic licence (repo); images from Phototourism (YFCC100M), ScanNet, TUM RGB-D',
         include=r'^assets/(phototourism_sample_images|scannet_sample_images|freiburg_sequence)/[^/]+\.(jpe?g|png)$',
         generator='web photo (Phototourism / YFCC) / RGB-D sensor frame (ScanNet, TUM)', history=False,
         how='Flickr tourist photos (JPEG), indoor sensor frames 640x480 (JPEG / PNG)', split='train',
         trust='sample images of three public pre-2020 benchmarks (Phototourism, ScanNet, TUM freiburg)'),
    dict(name='cvg__Hierarchical-Localization', repo='cvg/Hierarchical-Localization', cls='real',
         licence='Apache-2.0 (repo); Flickr photos of the Image Matching Challenge', include=r'^datasets/sacre_coeur/'
         r'mapping/[^/]+\.jpe?g$', generator='web photo (Flickr, Phototourism)', history=False,
         how='tourist photos of Sacre-Coeur', split='train',
         trust='Phototourism (YFCC100M) sample of the Image Matching Challenge'),
    dict(name='jbhuang0604__SelfExSR', repo='jbhuang0604/SelfExSR', cls='real',
         licence='no licence file (research benchmark sets: BSD100, Urban100, Sun-Hays80, Set5)',
         include=r'^data/(BSD100|Urban100|Sun-Hays80|Set5)/image_SRF_\d/img_\d+_SRF_\d_HR\.png$',
         generator='photo (super-resolution benchmark ground truth)', history=False,
         how='lossless PNG ground-truth photos', split='train',
         trust='ground-truth (HR) images of the standard super-resolution benchmarks (2016 repo); LR and '
               'super-resolved outputs excluded; Set14 left out (it holds a drawing and a slide)'),
    dict(name='datitran__raccoon_dataset', repo='datitran/raccoon_dataset', cls='real', licence='MIT (repo)',
         include=r'^images/[^/]+\.jpe?g$', generator='web photo (Google / Pixabay, 2017)', history=False,
         how='web photos of raccoons, JPEG', split='train',
         trust='object-detection dataset collected from the web in 2017, before modern generators'),
    dict(name='experiencor__kangaroo', repo='experiencor/kangaroo', cls='real',
         licence='no licence file (object-detection dataset, 2017)', include=r'^images/[^/]+\.jpe?g$',
         generator='web photo (2017)', history=False, how='web photos of kangaroos, JPEG', split='train',
         trust='object-detection dataset collected from the web in 2017, before modern generators'),
]

SOURCES += [
    # ---------------- AI (second batch) ----------------
    dict(name='lyyu6694__gpt4o-image-prompts', repo='lyyu6694/gpt4o-image-prompts', cls='ai',
         licence='none stated (fork of songguoxs/gpt4o-image-prompts synced to 2026-01)',
         include=r'^images/\d+[^/]*' + IMG, generator='GPT-4o / Nano Banana Pro / Grok (per case)',
         labeller=_songguoxs_models, history=False, how='as songguoxs (a later snapshot of the same gallery)',
         split='train', trust='a fork of songguoxs kept in sync with it; only what dedup against songguoxs and '
                              'lesonky leaves is counted (cases added upstream after the songguoxs snapshot)'),
    dict(name='Pixmind-io__awesome-midjourney-v7-example-prompts',
         repo='Pixmind-io/awesome-midjourney-v7-example-prompts', cls='ai', licence='CC0 1.0',
         include=r'^(images|docs/images|docs/x-twitter-images)/.+' + IMG,
         generator='Midjourney V7',
         labeller=lambda read, paths: {p: ('Midjourney V7 (X posts)' if 'x-twitter' in p else
                                           'Midjourney V7 (Pixmind API, model mj-v7)') for p in paths},
         history=True, how='JPEG as downloaded from the generator / X posts', split='train',
         trust='prompt guide whose own scripts (generate-images.sh, gen-images.js) generate every example with the '
               'model "mj-v7"; docs/x-twitter-images are Midjourney V7 posts it quotes'),
    dict(name='velokey-ai__awesome-seedream-5.0-pro-prompts', repo='velokey-ai/awesome-seedream-5.0-pro-prompts',
         cls='ai', licence='CC BY 4.0 (images: community posts, attributed)', include=r'^images/\d+-\d+' + IMG,
         generator='Seedream 5.0 Pro', history=True, how='JPEG as posted', split='train',
         trust='prompt collection: each numbered case shows the Seedream 5.0 Pro output(s) of its linked post'),
    # ---------------- real (second batch) ----------------
    dict(name='ajschumacher__imagen', repo='ajschumacher/imagen', cls='real',
         licence='ImageNet terms (non-commercial research); no copyright claim by the sampler',
         include=r'^imagen/[^/]+\.jpe?g$', generator='web photo (ImageNet)', history=False,
         how='ImageNet originals at their own resolution (not resized), five per detection category', split='train',
         trust='1,000 ImageNet images sampled in 2017 (README), before modern generators'),
    dict(name='MohamedBakrAli__Kodak-Lossless-True-Color-Image-Suite',
         repo='MohamedBakrAli/Kodak-Lossless-True-Color-Image-Suite', cls='real',
         licence='Kodak images released for unrestricted use', include=r'\.png$', generator='film scan (Kodak PhotoCD)',
         history=False, how='lossless PNG, 768x512', split='train',
         trust='the 24 Kodak PhotoCD test photos (1990s film scans)'),
    dict(name='drewnoakes__metadata-extractor-images__heif', repo='drewnoakes/metadata-extractor-images',
         cls='real', licence='"free to use these media files however you wish" (README)',
         include=r'\.(heic|heif)$', generator='exif', require_camera=True, history=False,
         how='HEIC/HEIF phone and camera originals', split='val',
         trust='the HEIF files of the metadata-extractor sample corpus (its JPEGs are a Data v1 val source); only '
               'files with camera EXIF kept'),
    dict(name='drewnoakes__digicam_corpus__heif', repo='drewnoakes/digicam_corpus', cls='real', licence='CC0 1.0',
         include=r'\.(heic|heif)$', generator='exif', device_from_path=True, history=False,
         how='HEIC originals straight from the phone', split='train',
         trust='the HEIC files of the digicam corpus (its JPEGs are a Data v1 train source), one folder per device'),
    dict(name='ianare__exif-samples__heif', repo='ianare/exif-samples', cls='real', licence='CC BY-SA 4.0 (README)',
         include=r'\.(heic|heif)$', generator='exif', require_camera=True, history=False,
         how='HEIC/HEIF samples', split='val',
         trust='the HEIF files of the EXIF sample collection (its JPEGs are a Data v1 val source); camera EXIF only'),
]

SOURCES += [
    # ---------------- AI (third batch) ----------------
    dict(name='andygock__FLUX-Style-CheatSheet', repo='andygock/FLUX-Style-CheatSheet', cls='ai',
         licence='MIT (repo; fork of SupaGruen/StableDiffusion-CheatSheet)', include=r'^img/flux/[^/]+\.webp$',
         generator='FLUX.1 [dev] (fp8, ComfyUI, 20 steps)', history=False,
         how='lossy WebP previews, one per artist style', split='train',
         trust='README: every preview generated with the prompt "style of [artist]" in ComfyUI with FLUX.1 dev fp8; '
               'HEAD only (the fork\'s history holds the SD cheat-sheet it was forked from); UI screenshots '
               '(img/other) excluded'),
    dict(name='SupaGruen__StableDiffusion-CheatSheet', repo='SupaGruen/StableDiffusion-CheatSheet', cls='ai',
         licence='MIT', include=r'^img/[^/]+\.webp$', generator='SD 1.5 checkpoints (Deliberate v2 / DreamShaper 3.2)',
         history=True, how='lossy WebP previews, one per artist (earlier renders in history)', split='train',
         trust='documentation: "All images were generated with either the Deliberate v2 or the DreamShaper 3.2 '
               'Checkpoint"; UI screenshots (img/other) and type examples (img/types) excluded'),
]

SOURCES += [
    # ---------------- real (third batch: personal photo sites, camera EXIF required) ----------------
    dict(name='frederiksjr__TravelBlog', repo='frederiksjr/TravelBlog', cls='real', licence='Unlicense (repo)',
         include=r'^assets/images/mobile/[^/]+\.jpe?g$', generator='exif', require_camera=True, history=True,
         how='phone originals (Samsung Galaxy Z Fold6, 4000x3000) of a travel blog; files over 4 MB are absent',
         split='val',
         trust='a travel blog\'s own phone photos (folder "mobile"), straight from the phone with full EXIF; only '
               'files with camera EXIF kept'),
    dict(name='JeremyWelsh__PhotoPortfolio', repo='JeremyWelsh/PhotoPortfolio', cls='real',
         licence='no licence file (personal portfolio, 2022; all rights reserved by the author)',
         include=r'^photo-portfolio/public/[^/]+\.jpe?g$', generator='exif', require_camera=True, history=False,
         how='DSLR photos (Canon EOS 200D II) exported from Lightroom at full resolution', split='train',
         trust='a photographer\'s portfolio site (2022), photos with the camera\'s EXIF; only camera-EXIF files kept'),
    dict(name='shantrm__photo-portfolio', repo='shantrm/photo-portfolio', cls='real',
         licence='no licence file (personal portfolio; all rights reserved by the author)',
         include=r'^images/[^/]+\.jpe?g$', generator='exif', require_camera=True, history=False,
         how='compact-camera photos (Panasonic DMC-FX3, Canon G7X Mark III) with EXIF', split='train',
         trust='a photographer\'s portfolio whose README names the two cameras; only camera-EXIF files kept'),
]

SOURCES += [
    dict(name='AzhuTech__awesome-gpt-image-2-prompts', repo='AzhuTech/awesome-gpt-image-2-prompts', cls='ai',
         licence='CC0 1.0', include=r'^(docs/)?assets/generated/[^/]+\.png$', generator='GPT-Image-2',
         history=True, how='PNG originals as returned by the API (1024x1536 / 1536x1024)', split='val',
         trust='README: every recipe is paired with its generated gpt-image-2 output (assets/generated); '
               'docs/ holds a copy of the same files'),
]

SOURCES += [
    dict(name='freestylefly__awesome-gpt-image-2', repo='freestylefly/awesome-gpt-image-2', cls='ai',
         licence='MIT (repo); images from the X posts each case names',
         include=r'^data/images/case\d+[^/]*\.(jpe?g|png|webp)$', generator='GPT-Image-2', history=True,
         how='social-site re-encodes (JPEG saved from X posts)', split='train',
         trust='data/cases.json gives each case image with the X post it comes from; a gallery of GPT-Image-2 '
               'community outputs; sponsor logos (data/images/sponsors) excluded'),
    dict(name='zyd52384__awesome-gpt-image-2', repo='zyd52384/awesome-gpt-image-2', cls='ai',
         licence='MIT (repo; fork of freestylefly/awesome-gpt-image-2)',
         include=r'^data/images/case\d+[^/]*\.(jpe?g|png|webp)$', generator='GPT-Image-2', history=True,
         how='social-site re-encodes (JPEG saved from X posts)', split='train',
         trust='a fork of freestylefly\'s gallery; only what dedup against it leaves is counted'),
    dict(name='Tatsumaki123123__awesome-gpt-image-2', repo='Tatsumaki123123/awesome-gpt-image-2', cls='ai',
         licence='MIT (repo; an earlier fork of freestylefly/awesome-gpt-image-2)',
         include=r'^data/images/case\d+[^/]*\.(jpe?g|png|webp)$', generator='GPT-Image-2', history=True,
         how='as zyd52384 (an earlier snapshot of the same gallery)', split='train',
         trust='a fork of the same gallery; only what dedup against freestylefly leaves is counted'),
    dict(name='ecomimagelab__ecommerce-gpt-image-prompts', repo='ecomimagelab/ecommerce-gpt-image-prompts',
         cls='ai', licence='CC BY 4.0 (per prompt record)', include=r'^assets/prompts/[^/]+/[^/]+\.png$',
         generator='GPT-Image-2', history=False, how='PNG contact sheets and previews as generated', split='train',
         trust='every data/prompts/*.json says model "gpt-image-2" and provenance "Generated specifically for this '
               'repository from the corresponding prompt"'),
]

SOURCES += [
    dict(name='HiAPIAI__awesome-gpt-image-2-prompts', repo='HiAPIAI/awesome-gpt-image-2-prompts', cls='ai',
         licence='CC BY 4.0', include=r'^images/[^/]+/(xhs-\d+/)?output[^/]*\.(jpe?g|png|webp)$',
         generator='GPT-Image-2',
         labeller=lambda read, paths: {p: 'mixed: GPT-Image-2 and other generators (comparison)'
                                       if '/comparison_case' in p else 'GPT-Image-2' for p in paths},
         history=True, how='JPEG / PNG outputs as posted; inputs excluded', split='train',
         trust='prompt gallery in the EvoLink layout: each case folder holds its output*; comparison cases hold '
               'other generators\' outputs too (all AI); community_reference/xhs-* are outputs reposted from '
               'Xiaohongshu'),
    dict(name='joesaiw1208-stack__awesome-gpt-image-2-commercial-prompts',
         repo='joesaiw1208-stack/awesome-gpt-image-2-commercial-prompts', cls='ai', licence='MIT',
         include=r'^assets/examples/[^/]+\.png$', generator='GPT-Image-2', history=True,
         how='PNG example outputs', split='train',
         trust='docs: "example outputs generated from prompts in this repo" (a GPT-Image-2 commercial prompt '
               'library)'),
]

SOURCES += [
    dict(name='PacktPublishing__Machine-Learning-with-Apache-Spark-Quick-Start-Guide',
         repo='PacktPublishing/Machine-Learning-with-Apache-Spark-Quick-Start-Guide', cls='real',
         licence='Open Images (images listed as CC BY 2.0); repo MIT',
         include=r'^Chapter07/data/image-recognition-data/(birds|planes)/[^/]+\.jpe?g$',
         generator='web photo (Open Images V4, Flickr)', history=False, how='Flickr photos as distributed by Open '
         'Images', split='train',
         trust='the chapter\'s Readme: a sample of Open Images V4 (2018); the "assorted" folder, whose origin is '
               'not stated, is left out'),
]

SOURCES += [
    dict(name='Gamrix__nano-banana-tests', repo='Gamrix/nano-banana-tests', cls='ai',
         licence='MIT (fork of minimaxir/nano-banana-tests, Max Woolf\'s prompt experiments)',
         include=r'^generated_imgs(_gpt)?/[^/]+\.(png|webp)$',
         generator='gpt-image-1 (generated_imgs_gpt) / Nano Banana (generated_imgs)',
         labeller=lambda read, paths: {p: ('gpt-image-1 (API PNG)' if p.startswith('generated_imgs_gpt/') else
                                           'Nano Banana (Gemini 2.5 Flash Image)') for p in paths},
         history=True, how='PNG straight from the gpt-image-1 API; WebP from Gemini; the input photos (prompt_imgs) '
         'excluded', split='val',
         trust='README_GPT: the *_gpt.py scripts generate 5 images per prompt with gpt-image-1 and save them to '
               'generated_imgs_gpt/; generated_imgs/ holds the Nano Banana notebook outputs'),
    dict(name='minimaxir__gemimg', repo='minimaxir/gemimg', cls='ai', licence='MIT',
         include=r'^docs/notebooks/gens/[^/]+\.webp$', generator='Nano Banana (Gemini 2.5 Flash Image)',
         history=True, how='WebP outputs (some at 0.5x)', split='train',
         trust='the library\'s example notebooks save their Gemini generations to docs/notebooks/gens/; the one '
               'web-page screenshot (PNG) is excluded'),
]

# ======================================= Data 2.1 (added 2026-11-27) =======================================
# The authentic side only. New real sources come after every Data v1 / 2.0 source, so a file they share with an older
# source is dropped from the new one. Phone and camera originals of test corpora go to validation (makers the
# validation lacked: Pixel, Samsung Galaxy, Xiaomi, vivo, Nexus, recent iPhones in HEIC), with two sets of everyday
# photos people took with their phones; the real-estate photo set goes to training.
SOURCES += [
    # ---------------- real: phone / camera originals (validation) ----------------
    dict(name='bigcat88__pillow_heif', repo='bigcat88/pillow_heif', cls='real', licence='BSD-3-Clause (repo)',
         include=r'^tests/images/(Pug/PUG\d|lego|iPhoneXR|parfait|heif_other/(arrow|pug|spatial_photo)|'
                 r'heif_special/(aux_YCbCr|xiaomi))\.heic$',
         generator='exif', require_camera=True, history=True,
         how='HEIC originals straight from the phone (iPhone XS / XR / 8 Plus / 13 Pro, Galaxy S25 Ultra, Xiaomi, '
             'Apple Vision Pro)', split='val',
         trust='HEIF library test photos with the phone\'s EXIF, named one by one; the library\'s own re-encodes and '
               'crops of them (pug_*_*, rgb8_*, jpeg_gif_png/, L_*, empty_icc, invalid_id) and the Lightroom export '
               '(benchmarks/) are left out; camera EXIF required; the history is read (Pug/, lego, iPhoneXR, '
               'parfait were removed from HEAD)'),
    dict(name='photostructure__exiftool-vendored.js', repo='photostructure/exiftool-vendored.js', cls='real',
         licence='MIT (repo)', include=r'^test/[^/]+\.jpe?g$', generator='exif', require_camera=True, history=True,
         how='camera / phone JPEGs of a metadata tool\'s tests (Google Pixel HDR+, Samsung GT-i7500, Olympus, Canon); '
             'its 8x8 metadata stubs are dropped as tiny', split='val',
         trust='exiftool wrapper test files; only files whose EXIF names a camera are kept (earlier versions of '
               'with_thumb.jpg held different camera files, so the history is read)'),
    dict(name='photoview__photoview', repo='photoview/photoview', cls='real', licence='AGPL-3.0 (repo)',
         include=r'^api/scanner/(.+/)?test_(media|data)/.+' + CAM, generator='exif', require_camera=True,
         history=True, how='photo-library test photos (Pixel 7, Nikon D3, Canon EOS, Fujifilm, Casio)', split='val',
         trust='self-hosted photo gallery\'s scanner and face-detection test media; only files with camera EXIF'),
    dict(name='mindeng__nom-exif', repo='mindeng/nom-exif', cls='real', licence='MIT (repo)',
         include=r'^testdata/[^/]+' + CAM, generator='exif', require_camera=True, history=False,
         how='phone originals (vivo X90 Pro+, Samsung Galaxy S5) of an EXIF parser\'s tests', split='val',
         trust='EXIF-parser test data; only files with camera EXIF (broken / 1-px stubs drop out as undecodable or '
               'tiny)'),
    dict(name='LycheeOrg__Lychee', repo='LycheeOrg/Lychee', cls='real', licence='MIT (repo)',
         include=r'^(tests/Samples|public|(scripts/demo|\.fly)/import/[^/]+)/[^/]+' + CAM,
         exclude=r'orientation-|broken|without_exif', generator='exif', require_camera=True, history=True,
         how='phone originals (Nexus 5X HDR+, iPhone 6s / 7 / 12 Pro HEIC, Galaxy A32 HEIC) and Canon EOS R5 photos '
             'resized for the demo album', split='val',
         trust='photo-management app\'s test samples and demo album (history read: the demo album and public/ '
               'HEIC left HEAD); camera EXIF required; the rotated / flipped / broken variants of one sample are '
               'left out'),
    dict(name='EdjeElectronics__TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-Windows-10',
         repo='EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-Windows-10',
         cls='real', licence='Apache-2.0 (repo)', include=r'^images/(train|test)/IMG_\d+\.JPG$',
         generator='phone photo (the author\'s iPhone, resized by him)', history=False,
         how='iPhone photos of playing cards on tables among everyday objects, resized to 504x378 (EXIF removed)',
         split='val',
         trust='README (2018): "I used my iPhone to take about 40 pictures of each card ... I used 311 pictures"; '
               'the one unresized file (test1.JPG) carries iPhone 6s EXIF; the webcam frames (cam_image*) are left '
               'out'),
    dict(name='congduytran12__Trash-Classification-', repo='congduytran12/Trash-Classification-', cls='real',
         licence='no licence file in the copy; TrashNet (garythung/trashnet) is MIT',
         include=r'^dataset-resized/[a-z]+/[a-z]+([1-9]|[1-4]\d)\.jpg$', generator='iPhone photo (TrashNet, 2016-17)',
         history=False, how='TrashNet\'s phone photos of waste items on a white board, resized to 512x384 by its '
         'resize.py; files 1-49 of each of the 6 classes', split='val',
         trust='an unzipped copy of TrashNet (garythung/trashnet, Stanford CS 229, 2016-17), whose README says the '
               'authors collected the pictures with an iPhone 7 Plus, 5S and SE on a white posterboard: the same '
               'dataset-resized/ folders, per-class counts (glass 501, paper 594 ...) and resize.py'),
    # ---------------- real: everyday scenes (training) ----------------
    dict(name='emanhamed__Houses-dataset', repo='emanhamed/Houses-dataset', cls='real',
         licence='no licence file (research dataset; README asks to cite Ahmed & Moustafa 2016)',
         include=r'^Houses Dataset/\d+_(bathroom|bedroom|frontal|kitchen)\.jpg$',
         generator='real-estate listing photo (2016)', history=False,
         how='listing photos of 535 Californian houses (bathroom, bedroom, kitchen, front), JPEG as published, '
             'about 400-1,000 px', split='train',
         trust='benchmark of "House price estimation from visual and textual features" (Ahmed & Moustafa, 2016): '
               'photos gathered from real-estate listings in 2016, before modern generators'),
    dict(name='apache__commons-imaging', repo='apache/commons-imaging', cls='real', licence='Apache-2.0 (repo)',
         include=r'^src/test/.+' + CAM, exclude=r'iptc added|small', generator='exif', require_camera=True,
         history=True, how='camera originals among an image library\'s test files (Canon, Nikon, Sony, Panasonic, '
         'Samsung Galaxy S22, GoPro)', split='train',
         trust='only files whose EXIF names a camera; the small IPTC-edited copies of one test photo are left out'),
]


# ---------------- Data 2.1, AI: first-generation outputs ----------------
# Files as the generator's API returned them (raw bytes written by the authors' scripts), labelled per file from the
# folder or file name that the generating script wrote. New sources come last, so a duplicate of an older source's
# file is dropped from the new one. Validation: the gpt-image-1 and Nano Banana API originals and the Replicate
# outputs (Nano Banana / FLUX / Qwen-Image); training: the five-model bias-study set.
_MAXIMUS_MODELS = {'dall_e_3': 'DALL-E 3 (OpenAI API, 1024x1024 PNG)',
                   'gemini_imagen_4_0': 'Imagen 4 (imagen-4.0-generate-001, Gemini API PNG)',
                   'flux_dev': 'FLUX.1 [dev] (fal.ai, JPEG saved as .png)',
                   'grok_2_image': 'Grok 2 Image / Aurora (xAI API, JPEG saved as .png)',
                   'sdxl_turbo': 'SDXL Turbo (512x512 PNG)'}
_PREANGELLEO_MODELS = {'nano-banana': 'Nano Banana (google/nano-banana on Replicate)',
                       'flux-dev': 'FLUX.1 [dev] (Replicate)',
                       'flux-1.1-pro-ultra': 'FLUX 1.1 [pro] Ultra (Replicate)',
                       'qwen-image': 'Qwen-Image (Replicate)'}


def _by_folder(prefix, depth, models):
    """A labeller: the generator named by the path's folder at that depth (paths under prefix only)."""
    def label(read_text, paths):
        return {p: models[p.split('/')[depth]] for p in paths
                if p.startswith(prefix) and p.count('/') > depth and p.split('/')[depth] in models}
    return label


def _thebananas_models(read_text, paths):
    """test_results*/Nano_Banana_<1|1_Pro|2>_<test>.jpg, written by run_tests.py from the API's inline image bytes."""
    names = {'1_Pro': 'Nano Banana Pro (gemini-3-pro-image-preview, raw API JPEG)',
             '1': 'Nano Banana (gemini-2.5-flash-image, raw API PNG)',
             '2': 'Nano Banana 2 (gemini-3.1-flash-image-preview, raw API PNG)'}
    out = {}
    for p in paths:
        m = re.match(r'test_results2?/Nano_Banana_(1_Pro|1|2)_\d+_', p)
        if m:
            out[p] = names[m.group(1)]
    return out


SOURCES += [
    # ---------------- validation: API originals ----------------
    dict(name='u1i__gpt-image-1-beer', repo='u1i/gpt-image-1-beer', cls='ai',
         licence='no licence file (all rights reserved by the author, Uli Hitzel)',
         include=r'^outputs/image_\d+_\d{8}_\d{6}\.png$', generator='gpt-image-1 (Azure OpenAI, raw API PNG)',
         history=False, how='1024x1024 PNG exactly as the API returned them (100 requests of one prompt); the '
         'contact-sheet grids and the results chart are excluded', split='val',
         trust='README: "We asked Azure\'s GPT-Image-1 model to generate \'the best beer in the world\' 100 times" '
               '(model Azure GPT-Image-1, API version 2024-10-21); outputs/ holds the 100 timestamped results'),
    dict(name='u1i__thebananas', repo='u1i/thebananas', cls='ai',
         licence='no licence file (all rights reserved by the author, Uli Hitzel)',
         include=r'^test_results2?/Nano_Banana_(1_Pro|1|2)_\d+_[A-Za-z_]+\.jpg$', exclude=r'_Cropped\.',
         generator='Nano Banana / Nano Banana Pro / Nano Banana 2 (per file name)', labeller=_thebananas_models,
         history=False, how='raw API bytes written to .jpg files: PNG from Nano Banana and Nano Banana 2, JPEG from '
         'Nano Banana Pro; the input photos (u.jpg, bkk.jpg), the ImageMagick-labelled copies (labeled_results*), '
         'the montages and one cropped file are excluded', split='val',
         trust='README and run_tests.py: each test prompt is sent to gemini-2.5-flash-image, gemini-3-pro-image-'
               'preview and gemini-3.1-flash-image-preview and the inline image data is written unchanged to '
               'test_results*/<model>_<test>.jpg (image edits of the author\'s reference photo: the outputs are '
               'wholly generated)'),
    dict(name='preangelleo__illustration-style-samples', repo='preangelleo/illustration-style-samples', cls='ai',
         licence='MIT (README; no LICENSE file in the repo)',
         include=r'^output/(pressure_test_300concurrent|compatibility_test)/(nano-banana|flux-dev|flux-1\.1-pro-ultra|'
                 r'qwen-image)/[^/]+\.jpg$',
         generator='Nano Banana / FLUX.1 [dev] / FLUX 1.1 [pro] Ultra / Qwen-Image (per folder)',
         labeller=_by_folder('output/', 2, _PREANGELLEO_MODELS),
         history=False, how='files as Replicate returned them (JPEG, one WebP named .jpg), 1024-2752 px', split='val',
         trust='README: one prompt in 17 illustration styles sent to four Replicate models; the generator script '
               'writes each output into a folder named after the model'),
    # ---------------- training ----------------
    dict(name='maximus-powers__img-gen-bias-analysis', repo='maximus-powers/img-gen-bias-analysis', cls='ai',
         licence='MIT',
         include=r'^images-annotations/(dall_e_3|gemini_imagen_4_0|flux_dev|grok_2_image|sdxl_turbo)/'
                 r'(ceo|nurse|swe|teacher|athlete)/(baseline|controlled)/[a-z]+_(baseline|controlled)_s\d+\.png$',
         generator='DALL-E 3 / Imagen 4 / FLUX.1 [dev] / Grok 2 Image / SDXL Turbo (per folder)',
         labeller=_by_folder('images-annotations/', 1, _MAXIMUS_MODELS),
         history=False, how='API outputs written by the img-gen/*-img-generation.py scripts: PNG from DALL-E 3, '
         'Imagen 4 and SDXL Turbo; FLUX.1 [dev] and Grok 2 return JPEG, saved under .png names', split='train',
         trust='bias study (README): 10 samples per occupation and prompt condition per model, generated by the '
               'per-provider scripts in img-gen/ (dall-e-3, imagen-4.0-generate-001, fal-ai/flux/dev, grok-2-image, '
               'SDXL Turbo) into one folder per model'),
]


# The Data 2.1 sources (everything from the first Data 2.1 entry on). Caches, runs and evaluation sets recorded before
# them leave them out (crops_v1.training_files' default), so those subsamples and file lists stay what they were;
# they enter through crops_v1.training_files(data21=True | 'only'): eval_v1's val21_* sets, cache.py --only-sources.
DATA21 = frozenset(s['name'] for s in SOURCES[[s['name'] for s in SOURCES].index('bigcat88__pillow_heif'):])


# ======================================= Data 2.2 (added 2026-11-27) =======================================
# Real portraits (faces and people), all taken before 2022, from face-recognition / face-detection projects: the
# detector called real portraits AI-generated, and its authentic side held few of them. New sources come after every
# older one (so a file they share with an older source is dropped from the new one) and after DATA21's definition, so
# DATA21 is unchanged. Training: UTKFace's aligned face crops and a face detector's group photos; validation: the
# test and example photos of six face-recognition libraries (deepface, face_recognition, facenet-pytorch,
# face-api.js, dlib, openface) and, from a second search, liveness-test phone selfies (Silent-Face-Anti-Spoofing),
# the inputs of 3D face alignment / reconstruction projects (3DDFA_V2, 3DDFA, DECA, PRNet, face-alignment), a
# background-matting capture (Background-Matting), WIDER FACE group photos (pytorch_face_landmark) and MTCNN examples
# (mtcnn-pytorch): whole sources, none of them in training (Microsoft's Face API samples were left out for their
# licence).
SOURCES += [
    # ---------------- real portraits (training) ----------------
    dict(name='bagashvilit__facial_recognition_bias', repo='bagashvilit/facial_recognition_bias', cls='real',
         licence='MIT (repo); UTKFace: non-commercial research use',
         include=r'^data/(random_200/[a-z]+/[a-z]+/[^/]+|images/\d+_[^/]*0)\.jpg\.chip\.jpg$',
         generator='web photo (UTKFace aligned and cropped face, 2016-17)', history=False,
         how='UTKFace\'s 200x200 aligned and cropped face JPEGs (small, re-encoded by the dataset\'s authors): the '
             'repo\'s 2,000-file random_200 sample (balanced by gender and race) and the files of data/images whose '
             'collection time stamp ends in 0 (about a tenth)', split='train',
         trust='README: the images are UTKFace (Zhang et al., 2017: faces gathered from the web, "aligned and cropped", '
               'labelled age_gender_race_date&time with collection dates in 2016-17), committed in 2020; photographs '
               'of people taken before any modern generator'),
    dict(name='Linzaer__Ultra-Light-Fast-Generic-Face-Detector-1MB',
         repo='Linzaer/Ultra-Light-Fast-Generic-Face-Detector-1MB', cls='real', licence='MIT (repo)',
         include=r'^(imgs/\d+\.jpg|MNN/imgs/\d+\.jpg|ncnn/(data/test|source/test)\.jpg|tf/imgs/test_input\.jpg)$',
         exclude=r'^imgs/22\.jpg$',
         generator='photo of people (face-detector test images, committed 2019-20)', history=True,
         how='group photos, crowds and portraits as JPEG (web photos, about 500-1,500 px); the detector\'s drawn '
             'results (result.jpg, test_output_*), the masked-face images added in 2022 and one 3D render (imgs/22.jpg, a Second '
             'Life avatar poster) are left out',
         split='train',
         trust='test images of a face detector, committed in 2019-10 / 2020-10: photographs of people (groups, '
               'crowds, street scenes); the history is read (imgs/4, 7, 14 left HEAD)'),
    # ---------------- real portraits (validation) ----------------
    dict(name='serengil__deepface', repo='serengil/deepface', cls='real', licence='MIT (repo)',
         include=r'^tests/(unit/)?dataset/img\d+\.jpg$', exclude=r'/img39\.jpg$',
         generator='photo of a person (face-recognition test photos, committed 2020)', history=True,
         how='celebrity and personal portraits as JPEG (web photos and camera files, 150-4,000 px); files added '
             'after 2021 (img39, img11_reflection, couple, selfie-many-people, target), the crop img4-cropped and '
             'the test-case-* files are left out', split='val',
         trust='deepface\'s unit-test face photos (img1..img67), all added in 2020 (the folder moved to tests/unit/ '
               'later; the history is read); portraits of real people'),
    dict(name='ageitgey__face_recognition', repo='ageitgey/face_recognition', cls='real', licence='MIT (repo)',
         include=r'^(examples/(knn_examples/(train|test)/.+|[^/]+)|tests/test_images/[^/]+)\.(jpe?g|png)$',
         exclude=r'obama-(240p|480p|720p)|obama_small|32bit|partial_face',
         generator='photo of a person (face-recognition examples, 2017)', history=False,
         how='portraits and two-person photos (JPEG / PNG, 300-1,900 px); the resized / re-encoded copies of one '
             'photo (obama-240p..720p, obama_small, 32bit.png) and the partial-face crops are left out',
         split='val',
         trust='example and test photos of the face_recognition library (2017): press photos of public figures and '
               'the KNN example\'s photos of people'),
    dict(name='timesler__facenet-pytorch', repo='timesler/facenet-pytorch', cls='real', licence='MIT (repo)',
         include=r'^data/(test_images/[^/]+/[^/]+\.(jpe?g|png)|multiface\.jpg)$',
         generator='photo of a person (face-recognition test photos, 2019)', history=True,
         how='celebrity portraits and a group photo (JPEG, up to 2.7 MB); the repo\'s aligned crops '
             '(test_images_aligned/) and detection drawings are left out', split='val',
         trust='facenet-pytorch\'s test photos of five actors and one group photo, committed in 2019'),
    dict(name='justadudewhohacks__face-api.js', repo='justadudewhohacks/face-api.js', cls='real',
         licence='MIT (repo)', include=r'^(examples/images|test/images)/[^/]+\.(jpe?g|png)$',
         exclude=r'white\.png|_cropped|face_rectangular|face\d\.png',
         generator='photo of people (face-detection examples, 2018)', history=False,
         how='TV-series group stills (bbt1-5) and expression portraits (JPEG); the per-character face crops, the '
             'cropped copies and the blank test image are left out', split='val',
         trust='face-api.js example and test images, committed in 2018'),
    dict(name='davisking__dlib', repo='davisking/dlib', cls='real', licence='Boost Software License 1.0 (repo)',
         include=r'^examples/(faces/[^/]+|johns/[^/]+/[^/]+)\.jpg$', exclude=r'dogs\.jpg',
         generator='photo of people (dlib face examples: PASCAL VOC 2007-09 photos, press photos)', history=False,
         how='photos of people from PASCAL VOC 2007-2009 (Flickr), press photos and the face-clustering example\'s '
             'small face photos (JPEG); the dog photo is left out', split='val',
         trust='dlib\'s face-detector / face-landmark / face-clustering example images (2008-2017)'),
    dict(name='cmusatyalab__openface', repo='cmusatyalab/openface', cls='real', licence='Apache-2.0 (repo)',
         include=r'^images/examples/[^/]+\.jpg$', generator='photo of a person (OpenFace examples, 2015)',
         history=False, how='press portraits of public figures (JPEG); the aligned crops are left out',
         split='val', trust='OpenFace\'s example photos (Adams, Carell, Clapton, Lennon, Longoria / Cooper), 2015'),
    # ---------------- real portraits (validation, second search: phone selfies first, then face-alignment and
    # face-detection test photos) ----------------
    dict(name='minivision-ai__Silent-Face-Anti-Spoofing', repo='minivision-ai/Silent-Face-Anti-Spoofing', cls='real',
         licence='Apache-2.0 (repo)', include=r'^images/sample/image_T\d\.jpg$',
         generator='phone selfie (Xiaomi MI 8 SE; liveness-test "true face" samples, committed 2020)', history=True,
         how='the live-face samples as JPEG: the two phone originals with EXIF (Xiaomi MI 8 SE, 1617-2166 px) from the '
             'history and the 640x480 copy of image_T1 at HEAD (resized by the authors, Shotwell); the spoof samples '
             '(image_F*: phone photos of a printed photo and of a tablet screen) and the *_result.jpg drawings are '
             'left out', split='val',
         trust='README\'s sample images of a face anti-spoofing model, committed in 2020-06: "T" files are photos of a '
               'live person taken with a phone (EXIF Make Xiaomi, Model MI 8 SE)'),
    dict(name='cleardusk__3DDFA_V2', repo='cleardusk/3DDFA_V2', cls='real', licence='MIT (repo)',
         include=r'^examples/inputs/(JianzhuGuo|trump_hillary)\.jpg$',
         generator='photo of a person (3D face alignment example inputs, committed 2020)', history=False,
         how='a phone portrait with EXIF (HUAWEI H60-L03, taken 2016-05-24, saved by Windows Photo Editor) and a '
             'press still of two speakers (JPEG); the three-photo montage emma.jpg and the drawn results in docs/ are '
             'left out', split='val',
         trust='3DDFA_V2\'s example inputs, committed in 2020-08 / 2020-10'),
    dict(name='senguptaumd__Background-Matting', repo='senguptaumd/Background-Matting', cls='real',
         licence='CC BY-NC-SA 4.0 (README)', include=r'^sample_data/input/\d+_img\.png$',
         generator='video frame of a person (phone video, background-matting sample, committed 2020)', history=False,
         how='1920x1080 PNG frames of one woman outdoors from a hand-held phone video (the input of the matting '
             'demo; two of the four are dropped by the build as near-duplicates of frame 0001); the background '
             'plates (*_back.png, sample_data/background) are left out', split='val',
         trust='Background Matting (CVPR 2020) sample data, committed in 2020-03: frames of a real capture, before '
               'any matting is applied'),
    dict(name='YadiraF__DECA', repo='YadiraF/DECA', cls='real',
         licence='MPI non-commercial scientific research licence (repo LICENSE)',
         include=r'^TestSamples/(AFLW2000/image\d+\.jpg|exp/[3-6]\.jpg|teaser/[0-2]\.(jpg|png))$',
         generator='photo of a person (3D face reconstruction test images, committed 2020)', history=False,
         how='AFLW2000 test faces (450x450 JPEG crops of Flickr photos, as the dataset distributes them), expression '
             'photos (450 px and one 2,444 px Nikon D50 stock photo of 2009) and the teaser\'s 3024x4032 phone-size '
             'portraits (no EXIF) and one press still; the 224-px examples/ crops and VoxCeleb frames, exp/0, 1, 7, 8 '
             '(224 px), the greyscale exp/2 and the results/ drawings are left out', split='val',
         trust='DECA\'s TestSamples, all committed in 2020-12: photographs of real people'),
    dict(name='YadiraF__PRNet', repo='YadiraF/PRNet', cls='real', licence='MIT (repo)',
         include=r'^TestImages/([04]|trump|AFLW2000/image\d+)\.jpg$',
         exclude=r'/image(00251|00516|01038|02283|02545)\.jpg$',
         generator='photo of a person (face alignment test images: AFLW2000 Flickr faces, 2018)', history=False,
         how='AFLW2000 test faces (450x450 JPEG crops of Flickr photos, as the dataset distributes them) and a press '
             'portrait (750x375); the greyscale / sepia faces (image00251, 00516, 01038, 02283, 02545), the 227-px '
             'files 1.jpg and 2.jpg, the masked cut-out 3.jpg and the cartoon 5.jpg are left out', split='val',
         trust='PRNet\'s TestImages, committed in 2018-03 / 2018-05'),
    dict(name='cleardusk__3DDFA', repo='cleardusk/3DDFA', cls='real', licence='MIT (repo)',
         include=r'^(c\+\+/(demo|test2)\.jpg|samples/emma_watson_0[1-3]\.jpg)$',
         generator='photo of a person (3D face alignment demo inputs, 2018-20)', history=True,
         how='three red-carpet photos of an actress (405-474 px wide, from the history) and a 640x360 film still; the '
             'montage emma_input.jpg, the *_3DDFA / *_pose / *_depth drawings, plots and renders are left out',
         split='val', trust='3DDFA\'s demo inputs, committed in 2018-11 (samples) and 2020-08 (c++)'),
    dict(name='1adrianb__face-alignment', repo='1adrianb/face-alignment', cls='real',
         licence='BSD-3-Clause (repo)', include=r'^test/assets/aflw-test\.jpg$',
         generator='photo of a person (AFLW test face, 2017-18)', history=True,
         how='both versions of the test image (450x450 JPEG AFLW face); the 3x3 grid and grass.jpg are left out',
         split='val', trust='face-alignment\'s test asset, committed in 2017-09 and replaced in 2018-01'),
    dict(name='cunjian__pytorch_face_landmark', repo='cunjian/pytorch_face_landmark', cls='real',
         licence='no licence file (all rights reserved by the author; WIDER FACE images: research use)',
         include=r'^samples/12--Group/[^/]+\.jpg$', exclude=r'_459\.jpg$',
         generator='group photo (WIDER FACE "12--Group" samples, committed 2020)', history=True,
         how='WIDER FACE group photos as the dataset distributes them (1024 px wide JPEG); the painting '
             '(12_Group_Group_12_Group_Group_12_459.jpg) and the drawn results/ are left out; most files come from '
             'the history', split='val',
         trust='the landmark detector\'s sample inputs, committed in 2020-02 (most deleted the same day; the history '
               'is read): WIDER FACE (2015) photographs of groups of people'),
    dict(name='TropComplique__mtcnn-pytorch', repo='TropComplique/mtcnn-pytorch', cls='real', licence='MIT (repo)',
         include=r'^images/office[1-4]\.jpg$',
         generator='photo of people (TV-series stills, MTCNN examples, 2017)', history=False,
         how='group stills of a TV series (JPEG, 570-1,280 px); the poster office5.jpg (title text laid over it) and '
             'the drawn example.png are left out', split='val',
         trust='mtcnn-pytorch\'s example images, committed in 2017-08'),
    # Microsoft/Cognitive-Face-Windows (stock photos of people) was gathered and then left out: its LICENSE-IMAGE.md
    # allows the images only for testing Microsoft Cognitive Services within one's organisation
]

# The Data 2.2 sources (everything from the first Data 2.2 entry on).
DATA22 = frozenset(s['name'] for s in SOURCES[[s['name'] for s in SOURCES].index(
    'bagashvilit__facial_recognition_bias'):])


# ======================================= Data 2.3 (added 2026-11-27, eighth session) =======================================
# AI-generated portraits: validation had 84 AI files with a portrait-sized face (160 readings as is and
# transformed), too few to trust the portrait group's recall (MODEL_CARD 1.5.0). The 'val' sources are for measuring
# only (test/eval/pixel-verdicts.ts on the shipped product; eval_v1's val23_raw): no calibration reads them. The
# 'train' sources (StyleGAN faces and FFHQ's real faces, the same framing) enter only runs that ask for them
# (crops_v1.training_files(data23='only')): every older list leaves all Data 2.3 sources out. Found by a search of
# GitHub (candidates-data23.md, which also lists what was rejected and why).
SOURCES += [
    dict(name='modelscope__facechain', repo='modelscope/facechain', cls='ai', licence='Apache-2.0 (repo)',
         include=r'^style_image/[^/]+\.(jpe?g|png|webp)$',
         generator='FaceChain style LoRAs on Stable Diffusion 1.5 / SDXL (portrait previews)', history=False,
         how='the style previews of style_image/ (JPEG, mostly 512x512, re-compressed): one portrait per style; '
             'poses/, inpaint_template/ and resources/ (pose references, figures) are left out', split='val',
         trust='FaceChain is a generator of AI portraits; style_image/ holds the pictures its styles make (README: '
               'each style\'s preview); no photograph is among them (checked by eye on a contact sheet)'),
    dict(name='ajwad-abrar__Religious-Bias', repo='ajwad-abrar/Religious-Bias', cls='ai',
         licence='no licence stated (README asks for a citation): measured on, never redistributed or trained on',
         include=r'^images/(biased|unbiased)/[^/]+\.(png|jpe?g|webp)$',
         generator='text-to-image system (not named; 1024x1792 PNGs and WebP as ChatGPT serves point to DALL-E 3)',
         history=False,
         how='photoreal portraits of people in religious dress, 2025 (PNG 1024x1024 / 1024x1792 and WebP saved as '
             '.png: the format is read from the bytes)', split='val',
         trust='README: "Generated images from text-to-image systems" for the paper Religious Bias Landscape in '
               'Language and Text-to-Image Models (arXiv 2501.08441)'),
    dict(name='ZhuoxuanZhangHarry__AgeGAN-FaceEvolution', repo='ZhuoxuanZhangHarry/AgeGAN-FaceEvolution', cls='ai',
         licence='NVIDIA Source Code License (non-commercial)', include=r'^out/seed\d+\.png$',
         generator='StyleGAN2-ADA (FFHQ 1024), generate.py outputs', history=False,
         how='lossless 1024x1024 PNGs straight from the generator (seeds 0-30)', split='val',
         trust='a fork of NVlabs/stylegan2-ada-pytorch; out/seed*.png are generate.py outputs committed as "setup FFHQ"'),
    dict(name='dinablachman__realorfake__fake', repo='dinablachman/realorfake', cls='ai',
         licence='no licence for the images (README: MIT text for the code): measured on, never redistributed or '
                 'trained on', include=r'^data/fake/[^/]+\.jpe?g$',
         generator='StyleGAN2 (thispersondoesnotexist.com, FFHQ), JPEG 1024x1024 as the site served it', history=False,
         how='the site\'s bytes unchanged (load_fake.py); each carries the site\'s small "StyleGAN2 (Karras et al.)" '
             'caption in its bottom-right corner, so it is for measuring only', split='val',
         trust='README: "AI-generated: thispersondoesnotexist.com (StyleGAN2, 2019)"'),
    # ---------------- faces for training (the face run inc-gan only; no older list takes them) ----------------
    dict(name='BaseMax__FakeFaces', repo='BaseMax/FakeFaces', cls='ai',
         licence='GPL-3.0 (repo); the images are a third-party site\'s (no licence stated): not redistributed',
         include=r'^faces/[^/]+\.(jpe?g|png)$',
         generator='StyleGAN-style face generator (a "this person does not exist" site), re-served JPEG', history=False,
         how='FFHQ-aligned face crops, JPEG 512x512 (some 256x256) as the site served them, no caption; files that do '
             'not decode are dropped', split='train',
         trust='README: "fake human faces" gathered by its crawler; images.txt lists every source URL on the '
               'generated-faces site'),
    dict(name='dinablachman__realorfake__real', repo='dinablachman/realorfake', cls='real',
         licence='FFHQ: CC BY-NC-SA 4.0 (each image keeps its Flickr licence)', include=r'^data/real/[^/]+\.(jpe?g|png)$',
         generator='photo of a person (FFHQ: Flickr photos, aligned 1024x1024 face crops, re-saved by PIL)',
         history=False,
         how='the first 600 images of the marcosv/ffhq-dataset stream (load_real.py), JPEG 1024x1024: the real side '
             'with the same framing as the StyleGAN faces above', split='train',
         trust='README: "real: FFHQ dataset" (Karras et al. 2019: Flickr photos, aligned and cropped faces)'),
]

# The Data 2.3 sources (everything from the first Data 2.3 entry on).
DATA23 = frozenset(s['name'] for s in SOURCES[[s['name'] for s in SOURCES].index('modelscope__facechain'):])


# ======================================= Data 2.7 (added 2026-11-28, eighteenth session) =======================================
# First-generation, photoreal files of today's generators under a licence that allows training (candidates-data27.md:
# a helper's search, every header read, 0 blobs shared with any source above or with modern/). Like Data 2.3, they
# enter only lists that ask for them (crops_v1.training_files(data27='only')): every older cache, run and threshold
# leaves them out. The Grok gallery is split by file number, a fifth ('...5.jpg', '...0.jpg') held out for measuring.
_GROK = dict(repo='forthtemple/imagegallery', cls='ai',
             licence='public domain (README.md at 0cad5cd7: "400 stock images I generated using grok ... Ive made these '
                     'images public domain"; the repository\'s GPL-3.0 LICENSE covers its gallery code)',
             generator='Grok (xAI Aurora), downloaded from grok.com, JPEG 1024x768 as served', history=False,
             how='stock-photo scenes (people at work, families, food, streets), all from one encoder (JFIF 1.02, one '
                 'luma table), no metadata; each carries a "Grok" logo in its bottom-right corner (y 730-755), so '
                 'restore.py keeps the top 1024x720 (crop_bottom 48): the logo never reaches a model',
             crop_bottom=48,
             trust='README ("stock images I generated using grok"), stockimages.json ("sentencesrc": "grok") and the '
                   'logo on every file (checked on a contact sheet)')
SOURCES += [
    dict(_GROK, name='forthtemple__imagegallery', include=r'^stockimages/\d*[1-46-9]\.jpg$', split='train'),
    dict(_GROK, name='forthtemple__imagegallery__held', include=r'^stockimages/\d*[05]\.jpg$', split='val'),
    dict(name='GoogleCloudPlatform__generative-ai__nanobanana', repo='GoogleCloudPlatform/generative-ai', cls='ai',
         licence='Apache-2.0 (repo LICENSE and gemini/nanobanana-recipes/LICENSE)',
         include=r'^gemini/nanobanana-recipes/outputs/(?!11_character_consistency_(9|11|collage)).*\.png$',
         generator='Nano Banana (gemini-2.5-flash-image-preview, utils/model_utils.py)', history=True,
         how='the recipes\' outputs as the API returned them (utils/image_utils.py writes its bytes), each with Google\'s '
             '"Made with Google AI" IPTC; in history only (added at aeb56adc, deleted the next day); three PIL '
             're-saves of that folder (no IPTC, an sRGB chunk, one a collage) are left out by the include', split='train',
         trust='the recipes\' code and Google\'s IPTC block in every file kept'),
    dict(name='google-gemini__nano-banana-hackathon-kit', repo='google-gemini/nano-banana-hackathon-kit', cls='ai',
         licence='Apache-2.0 (repo)', include=r'^(cat|dog|generated_images/[^/]+)\.png$',
         generator='Nano Banana (Gemini 2.5 Flash Image; the kit\'s examples)', history=True,
         how='PNG 1024x1024 with no metadata: a cat, a dog and a landscape with three edits of it (in history: added '
             '2025-09-07, gone from HEAD)', split='train',
         trust='the kit (Google\'s own hackathon repository) makes them with banana.py / initial.py'),
]

# The Data 2.7 sources (everything from the first Data 2.7 entry on).
DATA27 = frozenset(s['name'] for s in SOURCES[[s['name'] for s in SOURCES].index('forthtemple__imagegallery'):])
