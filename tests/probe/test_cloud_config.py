"""Credentials are found where the clients find them; TLS verification stays on unless
the user's own configuration turns it off."""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.probe.cloudconfig import CloudConfigError, load_cloud_auth

CLOUDS = """\
clouds:
  prod:
    auth:
      auth_url: https://keystone.example:5000/v3
      username: alice
      project_name: ops
    region_name: RegionTwo
    interface: internal
  lab:
    auth: {auth_url: "https://lab.example:5000/v3", username: bob}
    verify: false
"""
SECURE = "clouds:\n  prod:\n    auth:\n      password: FAKE-secure-pw\n"


def write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def test_a_cloud_from_the_user_config_dir_with_secure_yaml(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / ".config" / "openstack", "clouds.yaml", CLOUDS)
    write(home / ".config" / "openstack", "secure.yaml", SECURE)
    cloud = load_cloud_auth(env={"OS_CLOUD": "prod"}, cwd=tmp_path, home=home)
    assert cloud.auth["password"] == "FAKE-secure-pw"
    assert cloud.auth_url == "https://keystone.example:5000/v3"
    assert (cloud.region, cloud.interface, cloud.verify) == ("RegionTwo", "internal", True)
    assert "cloud 'prod'" in cloud.source and cloud.secrets() == ["FAKE-secure-pw"]


def test_the_working_directory_comes_first_and_verify_false_is_honoured(tmp_path: Path) -> None:
    write(tmp_path, "clouds.yaml", CLOUDS)
    cloud = load_cloud_auth("lab", env={}, cwd=tmp_path, home=tmp_path / "nohome")
    assert cloud.verify is False and cloud.auth["username"] == "bob"


def test_openrc_variables(tmp_path: Path) -> None:
    env = {
        "OS_AUTH_URL": "https://k:5000/v3",
        "OS_USERNAME": "u",
        "OS_PASSWORD": "FAKE-p",
        "OS_CACERT": "/etc/ca.pem",
    }
    cloud = load_cloud_auth(env=env, cwd=tmp_path, home=tmp_path)
    assert (cloud.auth_type, cloud.verify, cloud.cacert) == ("password", True, "/etc/ca.pem")
    assert (
        load_cloud_auth(env={**env, "OS_INSECURE": "true"}, cwd=tmp_path, home=tmp_path).verify
        is False
    )
    assert load_cloud_auth(env=env, cwd=tmp_path, home=tmp_path, insecure=True).verify is False


def test_nothing_configured_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CloudConfigError, match="no cloud is configured"):
        load_cloud_auth(env={}, cwd=tmp_path, home=tmp_path)
    write(tmp_path, "clouds.yaml", CLOUDS)
    with pytest.raises(CloudConfigError, match="clouds there: lab, prod"):
        load_cloud_auth("staging", env={}, cwd=tmp_path, home=tmp_path)
