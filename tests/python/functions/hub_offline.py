"""torch.hub offline, as torchvision's model builders use it: the cache directories ($TORCH_HOME,
set_dir), load_state_dict_from_url reading a checkpoint already in <hub dir>/checkpoints (no network:
the URL's host does not exist), model_dir / file_name, torch.utils.model_zoo.load_url,
torch.hub.load of a local hubconf.py, and torch._C._log_api_usage_once (every torchvision builder
calls it). The .out is PyTorch 2.15's output."""
import os
import tempfile

import torch
import torch.nn as nn

root = tempfile.mkdtemp()
os.environ["TORCH_HOME"] = os.path.join(root, "home")
rel = lambda p: os.path.relpath(p, root)
print("hub in torch", hasattr(torch, "hub"), sorted(torch.hub.__all__))
print("log usage", torch._C._log_api_usage_once("torchvision.models.resnet.resnet18"))
print("get_dir", rel(torch.hub.get_dir()), "home", rel(torch.hub._get_torch_home()))

torch.manual_seed(0)
net = nn.Linear(3, 2)
ckpt_dir = os.path.join(torch.hub.get_dir(), "checkpoints")
os.makedirs(ckpt_dir)
torch.save(net.state_dict(), os.path.join(ckpt_dir, "linear-0123abcd.pth"))
sd = torch.hub.load_state_dict_from_url("https://no-such-host.invalid/models/linear-0123abcd.pth")
print("cached", sorted(sd), torch.equal(sd["weight"], net.weight), torch.equal(sd["bias"], net.bias))
other = nn.Linear(3, 2)
other.load_state_dict(torch.hub.load_state_dict_from_url("https://no-such-host.invalid/x/linear-0123abcd.pth",
                                                         map_location="cpu", weights_only=True))
print("loaded", torch.equal(other.weight, net.weight))

mdir = os.path.join(root, "elsewhere")
os.makedirs(mdir)
torch.save({"w": torch.arange(4)}, os.path.join(mdir, "named.pt"))
print("model_dir + file_name", torch.hub.load_state_dict_from_url("https://no-such-host.invalid/a/b?c=1",
                                                                   model_dir=mdir, file_name="named.pt"))
import torch.utils.model_zoo
print("model_zoo", torch.utils.model_zoo.load_url is torch.hub.load_state_dict_from_url)

torch.hub.set_dir(os.path.join(root, "custom"))
print("set_dir", rel(torch.hub.get_dir()))

repo = os.path.join(root, "repo")
os.makedirs(repo)
with open(os.path.join(repo, "hubconf.py"), "w") as f:
    f.write("dependencies = ['torch']\n"
            "import torch\n"
            "def tiny(width=2, pretrained=False):\n"
            "    '''A tiny model.'''\n"
            "    torch.manual_seed(1)\n"
            "    return torch.nn.Linear(width, 1)\n")
m = torch.hub.load(repo, "tiny", width=4, source="local")
print("local load", m, m.weight.shape)
for label, call in [("missing entry", lambda: torch.hub.load(repo, "nope", source="local")),
                    ("bad source", lambda: torch.hub.load(repo, "tiny", source="ftp"))]:
    try:
        call()
    except Exception as e:
        print(label, type(e).__name__, e)

# download_url_to_file from a file:// URL: the whole file, the SHA-256 prefix checked, and a
# mismatch leaves nothing behind (no partial file, no destination)
import hashlib

data = bytes(range(256)) * 1200
src = os.path.join(root, "src.bin")
with open(src, "wb") as f:
    f.write(data)
digest = hashlib.sha256(data).hexdigest()
dst = os.path.join(root, "dl")
os.makedirs(dst)
torch.hub.download_url_to_file("file://" + src, os.path.join(dst, "ok.bin"), hash_prefix=digest[:8], progress=False)
print("download", open(os.path.join(dst, "ok.bin"), "rb").read() == data, sorted(os.listdir(dst)))
try:
    torch.hub.download_url_to_file("file://" + src, os.path.join(dst, "bad.bin"), hash_prefix="0000", progress=False)
except RuntimeError as e:
    print("hash mismatch", str(e).replace(digest, "<sha256>"), sorted(os.listdir(dst)))
